package remote

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
)

// S3 objects are named s3://BUCKET/KEY and read with S3's REST API: the
// same ranged GETs, with If-Match, as any object, sent to the bucket's
// endpoint and signed with SigV4 when there are credentials.

// An S3Config says how to reach S3, or a store that speaks its API.
type S3Config struct {
	// Endpoint, when set, is the store's base URL, which requests name the
	// bucket in the path of (path-style: ENDPOINT/BUCKET/KEY); empty for
	// AWS's (https://BUCKET.s3.REGION.amazonaws.com/KEY).
	Endpoint string
	// Region is the bucket's region, which signatures name.
	Region string
	// Credentials signs the requests; nil for anonymous ones (a public
	// bucket).
	Credentials aws.CredentialsProvider
}

// LoadS3Config reads the configuration as the AWS command line does:
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, else the
// profile AWS_PROFILE names (or the default one) in ~/.aws/credentials and
// ~/.aws/config (SSO and role profiles too); AWS_REGION (us-east-1 when
// none says); AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL for a store other
// than AWS. It never asks an instance's metadata service, which would make
// a machine outside AWS wait. Without credentials, requests are anonymous.
func LoadS3Config(ctx context.Context) (*S3Config, error) {
	cfg, err := config.LoadDefaultConfig(ctx, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	if err != nil {
		return nil, fmt.Errorf("the AWS configuration: %w", err)
	}
	c := &S3Config{Region: cfg.Region, Endpoint: os.Getenv("AWS_ENDPOINT_URL_S3")}
	if c.Endpoint == "" {
		c.Endpoint = os.Getenv("AWS_ENDPOINT_URL")
	}
	if c.Region == "" {
		c.Region = "us-east-1"
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err == nil {
		c.Credentials = cfg.Credentials
	}
	return c, nil
}

// NewS3Client returns a client of s3:// URLs by cfg.
func NewS3Client(cfg *S3Config) *Client {
	return &Client{Resolve: cfg.httpURL, Sign: cfg.sign, Gap: S3Gap}
}

// S3Gap is an S3 client's gap (see Client.Gap): S3 answers a request in
// tens of milliseconds, in which it sends megabytes, so ranges up to a
// MiB apart are read by one GET.
const S3Gap = 1 << 20

// httpURL returns the HTTP URL of the object at s3url, s3://BUCKET/KEY.
func (c *S3Config) httpURL(s3url string) (string, error) {
	rest, ok := strings.CutPrefix(s3url, "s3://")
	bucket, key, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || bucket == "" || key == "" {
		return "", fmt.Errorf("%s: not an S3 object's URL: give s3://BUCKET/KEY", s3url)
	}
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	path := strings.Join(segs, "/")
	if c.Endpoint != "" {
		return strings.TrimSuffix(c.Endpoint, "/") + "/" + url.PathEscape(bucket) + "/" + path, nil
	}
	return "https://" + bucket + ".s3." + c.Region + ".amazonaws.com/" + path, nil
}

// sign signs req with SigV4, its payload unsigned (UNSIGNED-PAYLOAD, which
// S3 takes), when there are credentials.
func (c *S3Config) sign(req *http.Request) error {
	if c.Credentials == nil {
		return nil
	}
	creds, err := c.Credentials.Retrieve(req.Context())
	if err != nil {
		return err
	}
	const unsigned = "UNSIGNED-PAYLOAD"
	req.Header.Set("X-Amz-Content-Sha256", unsigned)
	return s3Signer.SignHTTP(req.Context(), creds, req, unsigned, "s3", c.Region, time.Now())
}

// s3Signer signs S3's requests, whose paths S3 does not escape twice.
var s3Signer = v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })

// S3Client returns the client of s3:// URLs that source.Open reads them
// with, configured by LoadS3Config at its first use.
var S3Client = sync.OnceValues(func() (*Client, error) {
	cfg, err := LoadS3Config(context.Background())
	if err != nil {
		return nil, err
	}
	return NewS3Client(cfg), nil
})
