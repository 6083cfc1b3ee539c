package loopcompact_test

// Exhaustive agreement of the oracle and the library over every code point in the places where
// the grammar looks at single characters: names (X4.9, first and later characters), raw text and
// character references (X4.6, X4.8) and blank sections (X4.21). The fuzzer is unlikely to hit
// each multi-byte character class boundary; this loop does, in a few seconds.

import (
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/loopcompact/loopcompact/bindings/go/internal/oracle"
)

func TestExhaustiveCodePoints(t *testing.T) {
	const tail = `<constraints/><decisions/><state>s</state><open_items/></conversation_summary>`
	// Every BMP character; above it (no name characters, one Char class) a sample.
	step := func(c rune) rune {
		if c < 0x10000 && !testing.Short() {
			return 1
		}
		return 61
	}
	failures := 0
	check := func(doc string) {
		if failures > 20 {
			return
		}
		want := oracle.Validate([]byte(doc))
		if got := libraryResult(t, []byte(doc)); got != want {
			failures++
			t.Errorf("disagreement on %q: library %s, oracle %s", doc, got, want)
		}
	}
	for c := rune(0); c <= utf8.MaxRune; c += step(c) {
		if c >= 0xD800 && c <= 0xDFFF {
			check(fmt.Sprintf("<conversation_summary><goal>&#x%X;</goal>%s", c, tail))
			continue
		}
		s := string(c)
		check("<" + s + "/>")
		check("<a" + s + "/>")
		check("<conversation_summary><goal>" + s + "</goal>" + tail)
		check(fmt.Sprintf("<conversation_summary><goal>&#%d;</goal>%s", c, tail))
	}
}
