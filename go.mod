module github.com/csvidx/csvidx

go 1.26.0

require (
	github.com/edsrzf/mmap-go v1.2.0
	github.com/klauspost/compress v1.20.5
	github.com/rogpeppe/go-internal v1.16.0
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	github.com/zeebo/xxh3 v1.1.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
