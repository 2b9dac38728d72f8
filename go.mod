module github.com/gasplab/gasp

go 1.26
