// Command man writes csvidx's man pages, csvidx.1 and one page per command
// (csvidx-build.1, ...), from the commands' own help, with cobra's doc
// generator. It is a module of its own so that the generator's dependencies
// (cobra/doc, go-md2man) stay out of the CLI's module.
//
//	cd scripts/man && go run . -dir ../../docs/man
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/csvidx/csvidx/internal/cli"
	"github.com/spf13/cobra/doc"
)

func main() {
	dir := flag.String("dir", "../../docs/man", "directory to write the pages to")
	flag.Parse()
	if err := write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "man:", err)
		os.Exit(1)
	}
	fmt.Println("wrote the man pages to", *dir, "(read one with: man -l", *dir+"/csvidx.1)")
}

// write writes the pages into dir.
func write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root := cli.Root()
	root.DisableAutoGenTag = true
	// The date is the page's: SOURCE_DATE_EPOCH sets it, for reproducible pages.
	header := &doc.GenManHeader{Title: "CSVIDX", Section: "1", Source: "csvidx", Manual: "csvidx manual"}
	return doc.GenManTree(root, header, dir)
}
