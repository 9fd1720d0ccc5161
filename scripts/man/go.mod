module github.com/csvidx/csvidx/scripts/man

go 1.26.0

require (
	github.com/csvidx/csvidx v0.0.0
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.6 // indirect
	github.com/edsrzf/mmap-go v1.2.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	go.yaml.in/yaml/v3 v3.0.4 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/term v0.48.0 // indirect
)

replace github.com/csvidx/csvidx => ../..
