package oracle

// The request fingerprint of SPEC §10 the way a Go host computes it, written from the SPEC for the
// benchmarks and the differential tests of the Go binding: a strict decode of the request document
// into Go structs (encoding/json with DisallowUnknownFields), the checks of R10.2–R10.4, then
// json.Marshal of the same structs (R10.5, R10.6 are exactly what json.Marshal writes for them) and
// sha256.Sum256.
//
// What it checks beyond encoding/json: the document is valid UTF-8 (J5.3, D3), a JSON object
// (D6: `null` as the whole document), one value only (J5.1); `through_event_id` is a UUID (R10.1,
// lower-cased for R10.5); R10.2 in order with R10.3, the URL rules of R10.4 (from the SPEC's text,
// not net/url: Go 1.23's parser is not Go 1.26's), P8.9 and P8.10.
//
// What it does not check (encoding/json cannot see it without a second pass; a Go host that wants it
// pays for that pass, so this is a lower bound of what a faithful Go implementation costs):
//
//   - D1 / J5.5: keys that match only by ASCII case or Unicode folding are accepted as that key.
//   - D2 / J5.5: a repeated key is accepted, the last value wins.
//   - D6: a missing key or a `null` where the layout allows none leaves the zero value; a
//     `SecurityIdentity` of other than 32 entries is padded or cut; a `null` inside `Stop` is "".
//
// J5.2 (depth 10000) is encoding/json's own limit; J5.4 (lone surrogate escapes become U+FFFD) and
// J5.7 (floats, underflow to 0, overflow an error) are what encoding/json does.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// fpRequest is the layout of R10.1 and R10.5: the field order is the canonical key order.
type fpRequest struct {
	SystemRevision         string
	ToolPolicyRevision     string
	Model                  fpModel
	Basis                  fpBasis
	RuntimeContextRevision string
	CounterCapability      fpCounter
	InferenceCapability    fpInference
}

type fpModel struct {
	Provider  string
	APIFormat string
	BaseURL   string
	Name      string
	Origin    uint8
	Caps      fpCaps
	Limits    fpLimits
	Sampling  fpSampling
}

type fpCaps struct {
	AcceptsImages             bool
	Tools                     bool
	Thinking                  bool
	StructuredOutput          bool
	StructuredOutputWithTools bool
	ThinkingDialect           string
	PromptCaching             bool
}

type fpLimits struct {
	WindowTokens    uint64
	MaxInputTokens  uint64
	MaxOutputTokens uint64
}

type fpSampling struct {
	Temperature *float64
	TopP        *float64
	MaxTokens   *int64
	Stop        []string // nil is `null`, empty is `[]`
	Effort      string
}

type fpBasis struct {
	Revision       uint64 `json:"revision"`
	ThroughEventID string `json:"through_event_id"`
}

type fpCounter struct {
	Provider         string
	Transport        uint8
	SecurityIdentity [32]uint8 // an array, not a slice: JSON numbers both ways, never base64
	Retention        uint8
	TokenizerRev     string
	Quality          uint8
}

type fpInference struct {
	Provider         string
	Transport        uint8
	SecurityIdentity [32]uint8
	Retention        uint8
}

// RequestFingerprint is SPEC §10 in Go: the SHA-256 of the canonical bytes and "ok", or a zero
// digest and the status reason of the first failure ("wire", "SystemRevision", …, "InferenceCapability").
func RequestFingerprint(doc []byte) ([32]byte, string) {
	canonical, reason := CanonicalRequest(doc)
	if reason != "ok" {
		return [32]byte{}, reason
	}
	return sha256.Sum256(canonical), "ok"
}

// CanonicalRequest is the canonical bytes of R10.5 (json.Marshal of the decoded request) and "ok",
// or nil and the status reason of the first failure.
func CanonicalRequest(doc []byte) ([]byte, string) {
	var r fpRequest
	if !decodeRequest(doc, &r) {
		return nil, "wire"
	}
	if reason := r.validate(); reason != "ok" {
		return nil, reason
	}
	out, err := json.Marshal(&r)
	if err != nil { // NaN and infinities cannot come from JSON (D7)
		return nil, "Encoding"
	}
	return out, "ok"
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func decodeRequest(doc []byte, r *fpRequest) bool {
	if !utf8.Valid(doc) { // J5.3: encoding/json would turn bad bytes into U+FFFD
		return false
	}
	i := 0
	for i < len(doc) && isJSONSpace(doc[i]) {
		i++
	}
	if i == len(doc) || doc[i] != '{' { // a top-level `null` would decode to zero values
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(r); err != nil {
		return false
	}
	for _, c := range doc[dec.InputOffset():] { // J5.1: nothing but whitespace after the value
		if !isJSONSpace(c) {
			return false
		}
	}
	return normaliseUUID(&r.Basis.ThroughEventID)
}

// normaliseUUID checks the UUID form of R10.1 and lower-cases it (R10.5).
func normaliseUUID(s *string) bool {
	u := *s
	if len(u) != 36 {
		return false
	}
	upper := false
	for i := 0; i < 36; i++ {
		c := u[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case '0' <= c && c <= '9' || 'a' <= c && c <= 'f':
		case 'A' <= c && c <= 'F':
			upper = true
		default:
			return false
		}
	}
	if upper {
		*s = strings.ToLower(u)
	}
	return true
}

// validate is R10.2: the first failing step's status reason, or "ok".
func (r *fpRequest) validate() string {
	switch {
	case r.SystemRevision == "":
		return "SystemRevision"
	case r.ToolPolicyRevision == "":
		return "ToolPolicyRevision"
	case r.RuntimeContextRevision == "":
		return "RuntimeContextRevision"
	case !r.Model.valid():
		return "Model"
	case r.Basis.Revision == 0 || strings.Trim(r.Basis.ThroughEventID, "0-") == "":
		return "Basis"
	case !r.CounterCapability.valid():
		return "CounterCapability"
	case !r.InferenceCapability.valid():
		return "InferenceCapability"
	}
	return "ok"
}

// valid is R10.3.
func (m *fpModel) valid() bool {
	c, l := &m.Caps, &m.Limits
	switch {
	case m.Name == "":
		return false
	case c.StructuredOutputWithTools && !(c.Tools && c.StructuredOutput):
		return false
	case c.ThinkingDialect != "" && c.ThinkingDialect != "adaptive" && c.ThinkingDialect != "budget":
		return false
	case c.ThinkingDialect != "" && !c.Thinking:
		return false
	case l.WindowTokens != 0 && (l.MaxInputTokens > l.WindowTokens || l.MaxOutputTokens > l.WindowTokens):
		return false
	case m.BaseURL != "" && !validBaseURL(m.BaseURL):
		return false
	case m.Provider == "":
		return false
	}
	return true
}

func zeroIdentity(id *[32]uint8) bool { return *id == [32]uint8{} }

// valid is P8.9.
func (k *fpCounter) valid() bool {
	switch {
	case k.Transport == 0 || k.Transport > 3, k.Retention == 0 || k.Retention > 3, k.TokenizerRev == "",
		k.Quality == 0 || k.Quality > 3:
		return false
	case k.Transport == 1:
		return zeroIdentity(&k.SecurityIdentity)
	default: // SameEndpoint, SeparateEndpoint
		return k.Provider != "" && !zeroIdentity(&k.SecurityIdentity)
	}
}

// valid is P8.10.
func (k *fpInference) valid() bool {
	switch {
	case k.Transport == 0 || k.Transport > 4, k.Retention > 3:
		return false
	case k.Transport == 1:
		return zeroIdentity(&k.SecurityIdentity)
	default: // TLS, AttestedTLS, EndToEndEncrypted
		return k.Provider != "" && !zeroIdentity(&k.SecurityIdentity)
	}
}

// validBaseURL is R10.4, rule by rule.
func validBaseURL(s string) bool {
	rest, frag, hasFrag := strings.Cut(s, "#")
	if hasFrag && !validEscapes(frag) { // 1
		return false
	}
	for i := 0; i < len(rest); i++ { // 2
		if rest[i] < 0x20 || rest[i] == 0x7f {
			return false
		}
	}
	// 3: the scheme.
	if rest == "" || !isAlpha(rest[0]) {
		return false
	}
	i := 1
	for i < len(rest) && (isAlpha(rest[i]) || isDigit(rest[i]) || rest[i] == '+' || rest[i] == '-' || rest[i] == '.') {
		i++
	}
	if i == len(rest) || rest[i] != ':' {
		return false
	}
	scheme := strings.ToLower(rest[:i])
	if scheme != "http" && scheme != "https" {
		return false
	}
	// 4: the query is cut off; then `//`, the authority, the path.
	rest, _, _ = strings.Cut(rest[i+1:], "?")
	if !strings.HasPrefix(rest, "//") {
		return false
	}
	auth, path := rest[2:], ""
	if j := strings.IndexByte(auth, '/'); j >= 0 {
		auth, path = auth[:j], auth[j:]
	}
	if strings.IndexByte(auth, '@') >= 0 || auth == "" || !validHost(auth) || !validEscapes(path) { // 5, 8, 6–7, 9
		return false
	}
	if scheme == "http" { // 10
		switch strings.ToLower(hostName(auth)) {
		case "127.0.0.1", "::1", "localhost":
		default:
			return false
		}
	}
	return true
}

// hostName is the authority without its port (from the last `:` when `:` plus digits follow) and
// without surrounding brackets (R10.4 rule 10).
func hostName(a string) string {
	if c := strings.LastIndexByte(a, ':'); c >= 0 && allDigits(a[c+1:]) {
		a = a[:c]
	}
	if len(a) >= 2 && a[0] == '[' && a[len(a)-1] == ']' {
		a = a[1 : len(a)-1]
	}
	return a
}

// validHost is rules 6 and 7 on the authority a.
func validHost(a string) bool {
	if strings.IndexByte(a[1:], '[') >= 0 {
		return false
	}
	if a[0] != '[' {
		if c := strings.IndexByte(a, ':'); c >= 0 {
			if !allDigits(a[c+1:]) {
				return false
			}
			a = a[:c]
		}
		return validHostBytes(a, false)
	}
	end := strings.LastIndexByte(a, ']')
	if end < 0 {
		return false
	}
	if port := a[end+1:]; port != "" && (port[0] != ':' || !allDigits(port[1:])) {
		return false
	}
	inner := a[1:end]
	addr, zone, hasZone := strings.Cut(inner, "%25")
	// Rule 7 allows no escape in addr that could decode to IPv6 text (a `%25` would start the zone),
	// so the raw bytes must be IPv6 text themselves (6a).
	if !isIPv6(addr) {
		return false
	}
	if hasZone && (zone == "" || !validHostBytes(zone, true)) {
		// The decoded zone after the `%` must be non-empty: every escape and every raw byte of it is
		// one byte, so only "" is empty.
		return false
	}
	return true
}

// validHostBytes is rule 7 (zone false) or the zone's rules of rule 6 (zone true) on s.
func validHostBytes(s string, zone bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			pct := s[i+1] == '2' && s[i+2] == '5'
			if zone {
				if !pct && v != ' ' && (v >= 0x80 || !hostByte(v)) {
					return false
				}
			} else if v < 0x80 && !pct {
				return false
			}
			i += 2
			continue
		}
		if c < 0x80 && !hostByte(c) {
			return false
		}
	}
	return true
}

// hostByte: the ASCII bytes rule 7 allows raw.
func hostByte(c byte) bool {
	if isAlpha(c) || isDigit(c) {
		return true
	}
	return strings.IndexByte(`-._~!$&'()*+,;=:[]<>"`, c) >= 0
}

// isIPv6 is rule 6a.
func isIPv6(s string) bool {
	groups, ellipsis, i := 0, false, 0
	if strings.HasPrefix(s, "::") {
		ellipsis, i = true, 2
	}
	for i < len(s) {
		j := i
		for j < len(s) && j-i < 5 && isHex(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '.' { // a dotted IPv4 address as the last two groups
			if !(ellipsis || groups == 6) || !isIPv4(s[i:]) {
				return false
			}
			groups += 2
			break
		}
		if j == i || j-i > 4 {
			return false
		}
		groups++
		if j == len(s) {
			break
		}
		if s[j] != ':' {
			return false
		}
		i = j + 1
		if i < len(s) && s[i] == ':' {
			if ellipsis {
				return false
			}
			ellipsis = true
			i++
		} else if i == len(s) { // a single trailing colon
			return false
		}
	}
	if ellipsis {
		return groups < 8
	}
	return groups == 8
}

// isIPv4: four decimal fields 0–255 without leading zeros.
func isIPv4(s string) bool {
	fields := strings.Split(s, ".")
	if len(fields) != 4 {
		return false
	}
	for _, f := range fields {
		if f == "" || len(f) > 3 || !allDigits(f) || len(f) > 1 && f[0] == '0' {
			return false
		}
		n := 0
		for k := 0; k < len(f); k++ {
			n = n*10 + int(f[k]-'0')
		}
		if n > 255 {
			return false
		}
	}
	return true
}

// validEscapes: every `%` is followed by two hex digits (rules 1 and 9).
func validEscapes(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
