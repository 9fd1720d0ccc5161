//go:build !remote && !unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
)

// exeSuffix is what an executable's name ends with.
const exeSuffix = ".exe"

// execHelper runs the build of csvidx at path as a child with the command
// line args (less the program's name), the environment env (see
// helper.environ) and this process's standard files, and returns the
// child's exit status: systems other than Unix cannot replace a process's
// program. Ctrl-C reaches the child too, which decides what it means.
func execHelper(path string, args, env []string) (int, error) {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = env
	signal.Ignore(os.Interrupt)
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil || errors.As(err, &ee) && ee.ExitCode() >= 0:
		return cmd.ProcessState.ExitCode(), nil
	case errors.As(err, &ee):
		return exitError, nil // ended by a signal
	}
	return -1, err
}

// isExecutable reports whether path is a regular file.
func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// lookPath returns the file called name found on PATH (with the system's
// executable extensions), or "": not one found through a relative
// directory (exec.ErrDot).
func lookPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}
