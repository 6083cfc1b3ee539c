package oracle

import (
	"bytes"
	"encoding/hex"
	"os"
	"testing"
)

// specExample is the 943-byte document of SPEC R10.7, read from docs/SPEC.md (the code block after
// "The canonical bytes are these 943 bytes:"), and the digest the SPEC gives for it.
func specExample(t *testing.T) ([]byte, string) {
	t.Helper()
	spec, err := os.ReadFile("../../../../docs/SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := bytes.Cut(spec, []byte("The canonical bytes are these 943 bytes:\n```\n"))
	doc, after2, ok2 := bytes.Cut(after, []byte("\n```\nSHA-256 = `"))
	digest, _, ok3 := bytes.Cut(after2, []byte("`"))
	if !ok || !ok2 || !ok3 || len(doc) != 943 {
		t.Fatalf("R10.7 example not found in docs/SPEC.md (%d bytes)", len(doc))
	}
	return doc, string(digest)
}

func TestFingerprintSpecExample(t *testing.T) {
	doc, want := specExample(t)
	canonical, reason := CanonicalRequest(doc)
	if reason != "ok" || !bytes.Equal(canonical, doc) {
		t.Fatalf("%s: canonical bytes\n%s\nwant\n%s", reason, canonical, doc)
	}
	if got, _ := RequestFingerprint(doc); hex.EncodeToString(got[:]) != want {
		t.Errorf("digest %x, want %s", got, want)
	}
	// R10.7: an equivalent document gives the same digest.
	alt := bytes.Replace(doc, []byte(`"Temperature":0.5`), []byte(`"Temperature" : 5E-1`), 1)
	alt = append(append([]byte(" \n"), alt...), "\t\r\n"...)
	if got, reason := RequestFingerprint(alt); reason != "ok" || hex.EncodeToString(got[:]) != want {
		t.Errorf("equivalent document: %s %x", reason, got)
	}
}

func TestFingerprintDocumentForm(t *testing.T) {
	doc, _ := specExample(t)
	cases := map[string][]byte{
		"null document":     []byte("null"),
		"array":             []byte("[]"),
		"second value":      append(append([]byte{}, doc...), " {}"...),
		"BOM":               append([]byte("\xef\xbb\xbf"), doc...),
		"invalid UTF-8":     bytes.Replace(doc, []byte("system-v1"), []byte("system-\xff1"), 1),
		"unknown key":       bytes.Replace(doc, []byte(`"Name":"m"`), []byte(`"Name":"m","Extra":1`), 1),
		"UUID too short":    bytes.Replace(doc, []byte("01000000-"), []byte("0100000-"), 1),
		"UUID not hex":      bytes.Replace(doc, []byte("01000000-"), []byte("0100000g-"), 1),
		"Origin 256":        bytes.Replace(doc, []byte(`"Origin":0`), []byte(`"Origin":256`), 1),
		"MaxTokens 1.5":     bytes.Replace(doc, []byte(`"MaxTokens":null`), []byte(`"MaxTokens":1.5`), 1),
		"Temperature 1e400": bytes.Replace(doc, []byte(`"Temperature":0.5`), []byte(`"Temperature":1e400`), 1),
		"identity base64":   bytes.Replace(doc, []byte(`[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"Retention":1,"Tok`), []byte(`"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","Retention":1,"Tok`), 1),
	}
	for name, d := range cases {
		if bytes.Equal(d, doc) {
			t.Fatalf("%s: the replacement did not apply", name)
		}
		if _, reason := RequestFingerprint(d); reason != "wire" {
			t.Errorf("%s: %s, want wire", name, reason)
		}
	}
}

func TestBaseURL(t *testing.T) {
	cases := map[string]bool{
		"http://localhost:1234":         true,
		"HTTP://LOCALHOST:1":            true,
		"http://127.0.0.1/v1":           true,
		"http://[::1]":                  true,
		"http://[::1]:8080/x":           true,
		"https://api.example.com/v1":    true,
		"https://:443":                  true,
		"https://h/p?q=%zz#f%20":        true,
		"https://[fe80::1%25eth0]/":     true,
		"https://[::ffff:127.0.0.1]":    true,
		"https://[1:2:3:4:5:6:7:8]":     true,
		"https://[1:2:3:4:5:6:1.2.3.4]": true,
		"https://h%C3%A9.example":       true,
		"https://hé.example":            true,
		"http://127.0.0.2":              false,
		"http://localhost./":            false,
		"https://":                      false,
		"https://exa mple.com":          false,
		"https://@example.com":          false,
		"https://u@example.com":         false,
		"https:example.com":             false,
		"https:/example.com":            false,
		"ftp://example.com":             false,
		"https://example.com:443:443":   false,
		"https://::1:80":                false,
		"https://example.com/%zz":       false,
		"https://example.com#%zz":       false,
		"https://exa\tmple.com":         false,
		"https://h%41":                  false,
		"https://[127.0.0.1]":           false,
		"https://[1:2:3:4:5:6:7:8:9]":   false,
		"https://[1:2:3:4:5:6:7::8]":    false,
		"https://[1::2::3]":             false,
		"https://[::1]x":                false,
		"https://[::1":                  false,
		"https://a[::1]":                false,
		"https://[fe80::1%25]":          false,
		"https://[fe80::1%]":            false,
		"https://[01.2.3.4::]":          false,
		"https://[::1.2.3.04]":          false,
		"https://[fe80::1%25a%C3%A9]":   false,
		"https://[fe80::1%25a%20b]":     true,
		"1http://localhost":             false,
		"":                              false,
	}
	for u, want := range cases {
		if got := validBaseURL(u); got != want {
			t.Errorf("validBaseURL(%q) = %v, want %v", u, got, want)
		}
	}
}
