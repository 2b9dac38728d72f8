module github.com/gasplab/gasp

go 1.26

require (
	github.com/gomlx/go-huggingface v0.3.1 // indirect
	github.com/gomlx/gomlx v0.26.0 // indirect
	github.com/x448/float16 v0.8.4 // indirect
)
