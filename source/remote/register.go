package remote

import (
	"context"

	"github.com/csvidx/csvidx/source"
)

// DefaultClient is the client that source.Open reads http and https URLs
// with, once a program imports this package.
var DefaultClient = &Client{}

// The opener of http and https URLs, registered with package source when
// a program imports this one.
func init() {
	source.RegisterOpener(openURL, "http", "https")
}

// openURL opens the object at url with DefaultClient.
func openURL(url string) (source.Source, error) {
	s, err := DefaultClient.OpenSource(context.Background(), url)
	if err != nil {
		return nil, err
	}
	return s, nil
}
