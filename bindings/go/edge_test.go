package loopcompact_test

// Hand-picked cases for the rules where encoding/xml (Go 1.23) and the SPEC part ways, with the
// outcome the SPEC gives (rule in the comment). Both the oracle and the library must give it.

import (
	"testing"

	"github.com/loopcompact/loopcompact/bindings/go/internal/oracle"
)

func TestEdgeCases(t *testing.T) {
	const body = `<goal>g</goal><constraints/><decisions/><state>s</state><open_items/>`
	const doc = `<conversation_summary>` + body + `</conversation_summary>`
	cases := []struct {
		doc  string
		want oracle.Result
	}{
		{doc, oracle.OK},
		{"\ufeff" + doc, oracle.Structure}, // X4.4 BOM is text
		{`<conversation_summary a="x]]>y">` + body + `</conversation_summary>`, oracle.Structure}, // X4.11
		{`<wrong a="]]>]]>" b='<'>`, oracle.Syntax},                                               // X4.11 raw < in a value
		{`<wrong a="]]>]]>">`, oracle.Root},                                                       // X4.11 ]]> allowed
		{`<wrong a="&#xD800;">`, oracle.Syntax},                                                   // D5 in a value
		{`<wrong a="&#55296;">`, oracle.Syntax},                                                   // D5 decimal
		{`<conversation_summary><goal>&#xDFFF;</goal>`, oracle.Syntax},                            // D5 in text
		{`<a:b:c/>`, oracle.Syntax},                                                               // X4.10
		{`<x:conversation_summary>`, oracle.Structure},                                            // prefixed root
		{`<:conversation_summary>`, oracle.Root},                                                  // X4.10 local ":..."
		{`<conversation_summary:>`, oracle.Root},                                                  // X4.10 local "...:"
		{`<?xml version=version="1.0" version="2"?>` + doc, oracle.Syntax},                        // X4.14 amended: "1.0" is not seen
		{`<?xml version=version="2.0" version="1.0"?>` + doc, oracle.Structure},                   // X4.14 amended: "2.0" is not seen
		{`<?xml version=version="2.0"?>` + doc, oracle.Structure},                                 // X4.14 amended: no value
		{`<?xml version=1 version="2.0"?>`, oracle.Syntax},                                        // X4.14 example
		{`<?xml version="1.0" encoding="UtF-8"?>`, oracle.Structure},                              // X4.14 any case
		{`<?xml encoding="latin1"?>`, oracle.Syntax},                                              // X4.14
		{`<?xml version="?>`, oracle.Structure},                                                   // X4.14 no closing quote
		{`<?xml version=""?>`, oracle.Structure},                                                  // X4.14 empty value
		{`<?xml version='1.0"?>`, oracle.Structure},                                               // X4.14 no same quote
		{`<?XML version="2"?>`, oracle.Structure},                                                 // X4.14 target exactly xml
		{`<?a:b:c x?>`, oracle.Structure},                                                         // X4.14 any colons
		{`<?>`, oracle.Syntax},                                                                    // X4.14
		{doc + `<?xml version="2"?>`, oracle.Syntax},                                              // X4.14 anywhere
		{`<!DOCTYPE x [<!ENTITY e "v">]>`, oracle.Structure},                                      // X4.15
		{`<!DOCTYPE a '>' <!-- > --> >`, oracle.Structure},                                        // X4.15 quotes, comments
		{`<!DOCTYPE a <b> >`, oracle.Structure},                                                   // X4.15 depth
		{`<!DOCTYPE a <b >`, oracle.Syntax},                                                       // X4.15 unbalanced
		{`<!>>`, oracle.Structure},                                                                // X4.15 first byte raw
		{`<!`, oracle.Syntax},                                                                     // X4.15 end of input
		{`<![cdata[x]]>`, oracle.Syntax},                                                          // X4.3 variant
		{`x<![CDATA[`, oracle.Structure},                                                          // X4.3
		{`<!---->`, oracle.Structure},                                                             // X4.13
		{`<!--->`, oracle.Syntax},                                                                 // X4.13
		{`<!-- a --->`, oracle.Syntax},                                                            // X4.13
		{"<!-- \xff\x00 -->", oracle.Structure},                                                   // X4.13 unchecked
		{`<conversation_summary><goal>]&#93;></goal>`, oracle.Syntax},                             // X4.16 (text fine)
		{`<conversation_summary><goal>]]></goal>`, oracle.Syntax},                                 // X4.7
		{`<conversation_summary><goal>&#x20;</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>`, oracle.Content},
		{`<conversation_summary><goal>&#x200B;</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>`, oracle.OK},
		{`<conversation_summary><goal/>` + body[len(`<goal>g</goal>`):] + `</conversation_summary>`, oracle.Content},
		{`<conversation_summary ><goal >g</goal ><constraints /><decisions/><state>s</state><open_items/></conversation_summary >`, oracle.OK},
		{`<conversation_summary><goal>g</goal ><constraints/ ><decisions/><state>s</state><open_items/></conversation_summary>`, oracle.Syntax},
		{`</conversation_summary>`, oracle.Syntax},                        // X4.12 nothing open
		{`< conversation_summary>`, oracle.Syntax},                        // X4.11
		{`<conversation_summary></ conversation_summary>`, oracle.Syntax}, // X4.12
		{`<wrong a=b>`, oracle.Syntax},                                    // X4.11 unquoted
		{`<wrong a>`, oracle.Syntax},                                      // X4.11 no =
		{`<wrong a="1"b="2" a='3'>`, oracle.Root},                         // X4.11 no separator, repeats
		{`<wrong`, oracle.Syntax},                                         // X4.16
		{"", oracle.Root},                                                 // X4.20
		{" ", oracle.Structure},                                           // X4.19
		{doc + "\n", oracle.Structure},                                    // X4.19
		{doc + "\x00", oracle.Syntax},                                     // X4.19
		{doc + "&nbsp;", oracle.Syntax},                                   // X4.19
		{`<conversation_summary><goal>a &#X41; b</goal>`, oracle.Syntax},  // X4.6
		{`<conversation_summary><goal>&#x0000000041;</goal>` + body[len(`<goal>g</goal>`):] + `</conversation_summary>`, oracle.OK},
		{`<conversation_summary><goal>&#99999999999999999999999;</goal>`, oracle.Syntax}, // X4.6
		{`<conversation_summary><goal>&#xFFFE;</goal>`, oracle.Syntax},                   // X4.8
		{"<conversation_summary>\r\n<goal>g</goal>\r<constraints/><decisions/><state>s</state><open_items/></conversation_summary>", oracle.OK},
	}
	for _, c := range cases {
		if got := oracle.Validate([]byte(c.doc)); got != c.want {
			t.Errorf("oracle on %q: %s, want %s", c.doc, got, c.want)
		}
		if got := libraryResult(t, []byte(c.doc)); got != c.want {
			t.Errorf("library on %q: %s, want %s", c.doc, got, c.want)
		}
	}
}
