package source

import "testing"

// TestCompression: each format by its magic, and text that begins as one
// does is plain.
func TestCompression(t *testing.T) {
	for _, c := range []struct {
		name, data, want string
	}{
		{"Gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", "gzip"},
		{"Zstd", "\x28\xb5\x2f\xfd\x24\x0d", "zstd"},
		{"ZstdSkippable", "\x5e\x2a\x4d\x18\x04\x00\x00\x00", "zstd"},
		{"Xz", "\xfd7zXZ\x00\x00\x04", "xz"},
		{"Bzip2", "BZh91AY&SY\x00", "bzip2"},
		{"Bzip2Empty", "BZh9\x17\x72\x45\x38\x50\x90", "bzip2"},
		{"Zip", "PK\x03\x04\x14\x00", "zip"},
		{"ZipEmpty", "PK\x05\x06\x00\x00", "zip"},
		{"CSV", "id,user\n1,2\n", ""},
		{"BZhText", "BZh9,v\n1AY,x\n", ""},
		{"BZhShort", "BZh91AY&S", ""},
		{"PKText", "PK,v\n", ""},
		{"GzipTwoBytes", "\x1f\x8b", ""},
		{"Empty", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Compression([]byte(c.data)); got != c.want {
				t.Errorf("compression(%q) = %q, want %q", c.data, got, c.want)
			}
		})
	}
}
