//go:build !unix

package mapping

func advise([]byte, Advice) {}
