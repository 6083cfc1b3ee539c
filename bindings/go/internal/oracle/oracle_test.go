package oracle

import "testing"

func TestDeclValue(t *testing.T) {
	cases := []struct{ content, key, want string }{
		{` version="1.0"`, "version=", "1.0"},
		{` version='1.0'`, "version=", "1.0"},
		{`version=1 version="2.0"`, "version=", "2.0"},           // X4.14's example
		{`version=version="2" version="1.0"`, "version=", "1.0"}, // amended X4.14: resume 2 bytes after '='
		{`version=version="2.0"`, "version=", ""},                // the amendment's example
		{`encoding=encoding="x"`, "encoding=", ""},
		{`version= version="x"`, "version=", "x"},
		{`a version=`, "version=", ""},                  // an occurrence at the very end
		{`version="`, "version=", ""},                   // the quote at the very end
		{`version="1.0`, "version=", ""},                // no closing quote: no value
		{`version='1.0"`, "version=", ""},               // not the same quote
		{`version=`, "version=", ""},                    // nothing after
		{`encoding="a" encoding="b"`, "encoding=", "a"}, // the first one
		{`xversion="3"`, "version=", "3"},               // bytes, not attribute names
		{`version = "2"`, "version=", ""},               // not directly followed
	}
	for _, c := range cases {
		if got := string(declValue([]byte(c.content), c.key)); got != c.want {
			t.Errorf("declValue(%q, %q) = %q, want %q", c.content, c.key, got, c.want)
		}
	}
}

func TestHasSurrogateRef(t *testing.T) {
	cases := map[string]bool{
		"a &#xD800; b":     true,
		"&#xdfff;":         true,
		"&#55296;":         true,
		"&#57343;":         true,
		"&#xD7FF;&#xE000;": false,
		"&#x0000D800;":     true,
		"&amp;#xD800;":     false, // `&amp;` then text
		`a="&#x41;"`:       false,
		"&#99999999999;":   false, // saturates above U+10FFFF
	}
	for raw, want := range cases {
		if got := hasSurrogateRef([]byte(raw)); got != want {
			t.Errorf("hasSurrogateRef(%q) = %v", raw, got)
		}
	}
}

func TestBlank(t *testing.T) {
	for _, s := range []string{"", " \t\r\n", "\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\u0085\v\f"} {
		if !blank([]byte(s)) {
			t.Errorf("%q should be blank", s)
		}
	}
	for _, s := range []string{"x", "\u200b", "\ufeff", "\u180e", "\x1c", " a "} {
		if blank([]byte(s)) {
			t.Errorf("%q should not be blank", s)
		}
	}
}

func TestValidateDoesNotModifyInput(t *testing.T) {
	doc := []byte(`<x a="]]>">`)
	before := string(doc)
	if r := Validate(doc); r != Root {
		t.Errorf("got %s", r)
	}
	if string(doc) != before {
		t.Errorf("input modified: %q", doc)
	}
}
