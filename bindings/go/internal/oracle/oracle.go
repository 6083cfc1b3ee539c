// Package oracle is a small pure-Go implementation of the summary XML grammar of SPEC §4, written
// from the SPEC on top of encoding/xml. It exists for the tests of the Go binding only: the
// differential fuzz test compares it with the library, and the benchmarks show what the Go path
// costs. It is not part of the binding's API.
//
// encoding/xml (Go 1.23) does the tokenizing: Strict mode, RawToken (no namespace processing, no
// start/end matching), no Entity map, no CharsetReader. Where its behaviour differs from the SPEC,
// this package adds the rule:
//
//   - X4.3: the `<![CDATA[` byte search runs before anything else.
//   - X4.6/D5: a character reference to a surrogate is xml_syntax (encoding/xml turns it into
//     U+FFFD); found by scanning the raw bytes of each text run and start tag that decoded cleanly.
//   - X4.11: `]]>` is allowed in attribute values (encoding/xml rejects it there): the `>` is
//     rewritten as `&gt;`, which decodes to the same value, and the document is read again.
//   - X4.12/X4.16: end tags are matched against an own stack of raw names (RawToken does not), and
//     the end of the input with an open element is xml_syntax (RawToken returns io.EOF quietly).
//   - X4.14: the version/encoding checks of an `xml` declaration follow the SPEC's scan (amended
//     to encoding/xml's procInst); encoding/xml's own verdict is only used to know that the
//     declaration was read completely.
//
// The classifier (X4.17–X4.21) is a direct transcription of the SPEC's table.
package oracle

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"unicode"
	"unicode/utf8"
)

// Result is the outcome of Validate: OK or one of the four summary reasons.
type Result int

// Results, in the order of SPEC §3 (206–209).
const (
	OK Result = iota
	Syntax
	Root
	Structure
	Content
)

// Reason is the SPEC's reason string ("ok" for OK), as in the vector files.
func (r Result) Reason() string {
	switch r {
	case OK:
		return "ok"
	case Syntax:
		return "xml_syntax"
	case Root:
		return "xml_root"
	case Structure:
		return "xml_structure"
	case Content:
		return "xml_content"
	}
	return "unknown"
}

func (r Result) String() string { return r.Reason() }

// Validate applies SPEC §4 to doc.
func Validate(doc []byte) Result { return validate(doc, true) }

// ValidateReference is Validate without divergence D5: a surrogate character reference becomes
// U+FFFD and is accepted, as in the reference system (SPEC §11). Used to check the vectors'
// expect_reference field.
func ValidateReference(doc []byte) Result { return validate(doc, false) }

func validate(doc []byte, rejectSurrogateRefs bool) Result {
	if bytes.Contains(doc, []byte("<![CDATA[")) { // X4.3
		return Structure
	}
	for {
		r, patchAt := run(doc, rejectSurrogateRefs)
		if patchAt < 0 {
			return r
		}
		// `]]>` inside an attribute value (X4.11): read the document again with the `>` escaped.
		patched := make([]byte, 0, len(doc)+3)
		patched = append(patched, doc[:patchAt]...)
		patched = append(patched, "&gt;"...)
		doc = append(patched, doc[patchAt+1:]...)
	}
}

var sections = [5]string{"goal", "constraints", "decisions", "state", "open_items"}

// classifier is the state of X4.17.
type classifier struct {
	rootSeen, rootClosed bool
	depth                int // 0 outside the root, 1 in the root, 2 in a section
	k                    int // next section index
	nonBlank             [5]bool
}

// run reads doc token by token. It returns the result, or a position >= 0 where a `>` that
// encoding/xml rejected inside an attribute value must be escaped before reading again.
func run(doc []byte, rejectSurrogateRefs bool) (Result, int) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	var c classifier
	var open []string // raw names of the open elements (X4.12)
	for {
		start := d.InputOffset()
		tok, err := d.RawToken()
		end := d.InputOffset()
		if err == io.EOF {
			if len(open) > 0 { // X4.16
				return Syntax, -1
			}
			return c.finish(), -1
		}
		if err != nil {
			var se *xml.SyntaxError
			if !errors.As(err, &se) {
				// encoding/xml's own version/encoding check of an `<?xml ...?>` declaration: the
				// PI was read completely, so the SPEC's check decides (X4.14, X4.18).
				raw := doc[start:end]
				if bytes.HasPrefix(raw, []byte("<?xml")) && bytes.HasSuffix(raw, []byte("?>")) {
					return procInst(raw[len("<?xml") : len(raw)-2]), -1
				}
				panic("oracle: unexpected error from encoding/xml: " + err.Error())
			}
			if se.Msg == "unescaped ]]> not in CDATA section" && doc[start] == '<' && end > 0 && doc[end-1] == '>' {
				return OK, int(end - 1)
			}
			return Syntax, -1
		}
		raw := doc[start:end]
		var r Result
		switch t := tok.(type) {
		case xml.StartElement:
			if rejectSurrogateRefs && hasSurrogateRef(raw) {
				return Syntax, -1
			}
			open = append(open, rawName(t.Name))
			r = c.startTag(t)
		case xml.EndElement:
			if len(open) == 0 || open[len(open)-1] != rawName(t.Name) { // X4.12
				return Syntax, -1
			}
			open = open[:len(open)-1]
			r = c.endTag()
		case xml.CharData:
			if rejectSurrogateRefs && hasSurrogateRef(raw) {
				return Syntax, -1
			}
			r = c.text(t)
		case xml.ProcInst:
			if t.Target == "xml" {
				return procInst(t.Inst), -1
			}
			return Structure, -1
		case xml.Comment, xml.Directive:
			return Structure, -1
		}
		if r != OK {
			return r, -1
		}
	}
}

// rawName rebuilds the name as written: RawToken splits it at its one inner colon (X4.10).
func rawName(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// X4.18, start tags.
func (c *classifier) startTag(t xml.StartElement) Result {
	switch {
	case c.rootClosed:
		return Structure
	case !c.rootSeen:
		if t.Name.Local != "conversation_summary" {
			return Root
		}
		if t.Name.Space != "" || len(t.Attr) > 0 {
			return Structure
		}
		c.rootSeen, c.depth = true, 1
		return OK
	case c.depth == 1 && c.k < 5 && t.Name.Space == "" && t.Name.Local == sections[c.k] && len(t.Attr) == 0:
		c.depth = 2
		return OK
	}
	return Structure
}

// X4.18, end tags (the tokenizer has matched the name).
func (c *classifier) endTag() Result {
	switch {
	case c.depth == 2:
		c.k++
		c.depth = 1
		return OK
	case c.depth == 1 && c.k == 5:
		c.rootClosed, c.depth = true, 0
		return OK
	}
	return Structure
}

// X4.18, character data.
func (c *classifier) text(t xml.CharData) Result {
	switch {
	case !c.rootSeen || c.rootClosed:
		return Structure
	case c.depth == 1:
		if !blank(t) {
			return Structure
		}
	case c.depth == 2:
		if !blank(t) {
			c.nonBlank[c.k] = true
		}
	}
	return OK
}

// X4.20.
func (c *classifier) finish() Result {
	if !c.rootSeen {
		return Root
	}
	if !c.nonBlank[0] || !c.nonBlank[3] {
		return Content
	}
	return OK
}

// blank: only White_Space characters (X4.21). A section is blank exactly when each of its text
// runs is, so the runs need not be joined.
func blank(text []byte) bool {
	for len(text) > 0 {
		r, n := utf8.DecodeRune(text)
		if !unicode.Is(unicode.White_Space, r) {
			return false
		}
		text = text[n:]
	}
	return true
}

// hasSurrogateRef reports a character reference to U+D800–U+DFFF in raw text or a raw start tag
// (where `&` occurs only in attribute values). encoding/xml has already accepted every reference
// in raw as well-formed.
func hasSurrogateRef(raw []byte) bool {
	for {
		i := bytes.Index(raw, []byte("&#"))
		if i < 0 {
			return false
		}
		raw = raw[i+2:]
		base := uint64(10)
		if len(raw) > 0 && raw[0] == 'x' {
			base, raw = 16, raw[1:]
		}
		var v uint64
		for len(raw) > 0 && raw[0] != ';' {
			v = v*base + uint64(hexValue(raw[0]))
			if v > unicode.MaxRune {
				v = unicode.MaxRune + 1 // saturate; encoding/xml has rejected such values anyway
			}
			raw = raw[1:]
		}
		if v >= 0xD800 && v <= 0xDFFF {
			return true
		}
	}
}

func hexValue(b byte) byte {
	switch {
	case b >= '0' && b <= '9':
		return b - '0'
	case b >= 'a' && b <= 'f':
		return b - 'a' + 10
	case b >= 'A' && b <= 'F':
		return b - 'A' + 10
	}
	return 0
}

// procInst classifies a well-formed `xml` processing instruction from its content (X4.14): a bad
// version or encoding is xml_syntax, anything else is a PI and so xml_structure (X4.18).
func procInst(content []byte) Result {
	if v := declValue(content, "version="); len(v) > 0 && string(v) != "1.0" {
		return Syntax
	}
	if v := declValue(content, "encoding="); len(v) > 0 && !asciiEqualFold(v, "utf-8") {
		return Syntax
	}
	return Structure
}

// declValue scans content for key (X4.14 as amended on 2026-12-01, encoding/xml's procInst): at an
// occurrence directly followed by a quote it returns the bytes up to the next occurrence of that
// quote (nil when there is none); at an occurrence followed by any other byte the scan resumes two
// bytes after its '=', and an occurrence at the very end ends it with no value.
func declValue(content []byte, key string) []byte {
	for i := 0; i < len(content); {
		k := bytes.Index(content[i:], []byte(key))
		if k < 0 {
			return nil
		}
		p := i + k + len(key)
		if p >= len(content) {
			return nil
		}
		if q := content[p]; q == '"' || q == '\'' {
			e := bytes.IndexByte(content[p+1:], q)
			if e < 0 {
				return nil
			}
			return content[p+1 : p+1+e]
		}
		i = p + 1
	}
	return nil
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
