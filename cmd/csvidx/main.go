// Command csvidx indexes a huge CSV file by one column and prints the rows
// of a key in about a millisecond. See the README for the whole story.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// A closed stdout (csvidx get ... | head) makes writes fail with EPIPE,
	// which get treats as the reader having had enough, instead of the
	// process dying of SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	processExits = true
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
