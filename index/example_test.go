package index_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/csvidx/csvidx/index"
)

// writeOrders writes a small CSV for the examples and returns its path.
func writeOrders() (dir, path string) {
	dir, err := os.MkdirTemp("", "csvidx-example")
	if err != nil {
		log.Fatal(err)
	}
	path = filepath.Join(dir, "orders.csv")
	csv := "order_id,user_id,comment\n1,42,first\n2,7,\"two\nlines\"\n3,42,\"a, b\"\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		log.Fatal(err)
	}
	return dir, path
}

// Build an index once, then look keys up as often as needed.
func Example() {
	dir, csvPath := writeOrders()
	defer os.RemoveAll(dir)

	if _, err := index.Build(context.Background(), csvPath, &index.BuildOptions{Key: "user_id"}); err != nil {
		log.Fatal(err)
	}
	ix, err := index.Open(csvPath, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()

	err = ix.Lookup([]byte("42"), func(row []byte) error {
		fmt.Printf("%s", row)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	n, err := ix.Count([]byte("7"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("rows of user 7:", n)
	// Output:
	// 1,42,first
	// 3,42,"a, b"
	// rows of user 7: 1
}

// Get prints the rows of several keys in file order, each row once.
func ExampleIndex_Get() {
	dir, csvPath := writeOrders()
	defer os.RemoveAll(dir)
	if _, err := index.Build(context.Background(), csvPath, &index.BuildOptions{Key: "1"}); err != nil {
		log.Fatal(err)
	}
	ix, err := index.Open(csvPath, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ix.Close()
	keys := [][]byte{[]byte("7"), []byte("42"), []byte("7")}
	err = ix.Get(keys, func(row []byte) error {
		fmt.Printf("%q\n", row)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// "1,42,first\n"
	// "2,7,\"two\nlines\"\n"
	// "3,42,\"a, b\"\n"
}

// Verify tells whether an index is exactly what a build would write now.
func ExampleVerify() {
	dir, csvPath := writeOrders()
	defer os.RemoveAll(dir)
	if _, err := index.Build(context.Background(), csvPath, &index.BuildOptions{Key: "user_id"}); err != nil {
		log.Fatal(err)
	}
	res, err := index.Verify(context.Background(), csvPath, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("equal:", res.Equal)
	// Output:
	// equal: true
}
