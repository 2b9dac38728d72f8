module github.com/gasplab/gasp

go 1.26.5

require (
	github.com/gomlx/compute v0.1.0
	github.com/gomlx/go-huggingface v0.3.1
	github.com/gomlx/gomlx v0.28.1
	github.com/x448/float16 v0.8.4
)

require (
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/gofrs/flock v0.13.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/exp v0.0.0-20260410095643-746e56fc9e2f // indirect
	golang.org/x/sys v0.43.0 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
)
