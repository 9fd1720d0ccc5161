//go:build !remote && unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
)

// exeSuffix is what an executable's name ends with.
const exeSuffix = ""

// execHelper replaces this process with the build of csvidx at path, with
// the command line args (less the program's name) and the environment env
// (see helper.environ). It returns only on failure.
func execHelper(path string, args, env []string) (int, error) {
	argv := append([]string{path}, args...)
	return -1, syscall.Exec(path, argv, env)
}

// isExecutable reports whether path is a regular file that someone may
// execute.
func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// lookPath returns the first executable file called name in PATH's
// directories, as a shell finds a command, or "". Relative directories
// (an empty one is the working directory) are skipped, as os/exec refuses
// what they find (exec.ErrDot); os/exec itself is not linked, for its
// size.
func lookPath(name string) string {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p
		}
	}
	return ""
}
