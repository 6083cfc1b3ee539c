// Command gofloat is the Go side of tests/go_float.rs, the R10.6 differential test: it reads
// binary64 bit patterns (8 bytes each, little-endian) on standard input and writes, for each, one
// line with two fields: the number as Go's encoding/json writes a float64 (strconv.AppendFloat with
// 'f' or 'e' and precision -1, the exponent's leading zero dropped) and strconv's shortest 'e' form.
// It also checks that json.Marshal gives the first field, so the layout rule is Go's own.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
)

func jsonLayout(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// encoding/json: "clean up e-09 to e-9".
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	defer out.Flush()
	var word [8]byte
	var line []byte
	for {
		if _, err := io.ReadFull(in, word[:]); err == io.EOF {
			return
		} else if err != nil {
			fmt.Fprintln(os.Stderr, "gofloat:", err)
			os.Exit(2)
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(word[:]))
		line = jsonLayout(line[:0], f)
		if marshalled, err := json.Marshal(f); err != nil || !bytes.Equal(marshalled, line) {
			fmt.Fprintf(os.Stderr, "gofloat: json.Marshal(%v) = %s, want %s (%v)\n", f, marshalled, line, err)
			os.Exit(2)
		}
		line = append(line, ' ')
		line = strconv.AppendFloat(line, f, 'e', -1, 64)
		line = append(line, '\n')
		out.Write(line)
	}
}
