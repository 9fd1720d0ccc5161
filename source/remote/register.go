package remote

import (
	"context"

	"github.com/csvidx/csvidx/source"
)

// DefaultClient is the client that source.Open reads http and https URLs
// with, once a program imports this package.
var DefaultClient = &Client{}

// The openers of http, https and s3 URLs, registered with package source
// when a program imports this one.
func init() {
	source.RegisterOpener(openURL, "http", "https")
	source.RegisterOpener(openS3, "s3")
}

// openS3 opens the S3 object at url with S3Client.
func openS3(url string) (source.Source, error) {
	c, err := S3Client()
	if err != nil {
		return nil, err
	}
	s, err := c.OpenSource(context.Background(), url)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// openURL opens the object at url with DefaultClient.
func openURL(url string) (source.Source, error) {
	s, err := DefaultClient.OpenSource(context.Background(), url)
	if err != nil {
		return nil, err
	}
	return s, nil
}
