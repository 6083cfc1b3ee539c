package loopcompact_test

// The round's calls (SPEC §15) through the Go API: the bare reply, the head, the replacement and
// its check. Every expected byte string is written here from the SPEC's encodings (E7.2–E7.6,
// R15.8, R15.9), never taken from the library.

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// The round's input, written in its canonical encoding (E7.2, E7.3: assistant messages end with
// "usage":null), so that a head is this document with fewer messages.
const (
	roundIdentity = `{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},` +
		`"model":{"provider":"provider","model":"model"},` +
		`"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",` +
		`"transcript":[`
	roundEnd = `],"max_summary_tokens":64}`

	m0System = `{"role":"system","blocks":[{"type":"text","text":"be brief"}]}`
	m1User   = `{"role":"user","blocks":[{"type":"text","text":"list the files"}]}`
	m2Call   = `{"role":"assistant","blocks":[{"type":"tool_use","id":"c1","name":"ls","input":{}}],"usage":null}`
	m4Answer = `{"role":"assistant","blocks":[{"type":"text","text":"two files"}],"usage":null}`
	m5User   = `{"role":"user","blocks":[{"type":"text","text":"now ship it"}]}`
	// F7.3: the stub that replaces every block of an old tool message.
	stubText = "[old tool result omitted for compaction]"

	// A valid summary (X4): 152 bytes.
	roundSummary = `<conversation_summary><goal>List the files.</goal><constraints/><decisions/>` +
		`<state>ls found a.go &amp; b.go.</state><open_items/></conversation_summary>`
	// The same without <constraints/>, over three lines: X4.18 at line 3, column 1 (byte 52).
	roundRejected = "<conversation_summary>\n<goal>List the files.</goal>\n<decisions/><state>done</state><open_items/>\n</conversation_summary>"
)

// longToolText is the tool result's text: 400 bytes, so that stubbing it (F7.3) shrinks a head.
var longToolText = strings.Repeat("a.go b.go ", 40)

func toolMessage(text string) string {
	return `{"role":"tool","blocks":[{"type":"text","text":"` + text + `"}],"tool_use_id":"c1","is_error":false}`
}

// roundMessages are the six messages: a leading system message, the user's request, a tool call
// and its result, the answer and a new user turn.
func roundMessages() []string {
	return []string{m0System, m1User, m2Call, toolMessage(longToolText), m4Answer, m5User}
}

func roundDoc(messages ...string) string {
	return roundIdentity + strings.Join(messages, ",") + roundEnd
}

// canonicalText is a JSON string in the canonical spelling of E7.6 for the characters a summary
// here holds: <, > and & as \u003c, \u003e, \u0026 (no quote, backslash or control character).
func canonicalText(s string) string {
	r := strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`)
	return `"` + r.Replace(s) + `"`
}

// summaryMessage is the summary message of R15.9 with the blocks of a kept user message after it.
func summaryMessage(summary string, kept ...string) string {
	blocks := []string{`{"type":"text","text":` + canonicalText(summary) + `}`}
	return `{"role":"user","blocks":[` + strings.Join(append(blocks, kept...), ",") + `]}`
}

func roundInput(t *testing.T) *lc.Input {
	t.Helper()
	in := mustParse(t, []byte(roundDoc(roundMessages()...)))
	// The fixture is canonical as written (E7): the whole input encodes to itself.
	if got, err := in.EncodeWithin(1 << 20); err != nil || string(got) != roundDoc(roundMessages()...) {
		t.Fatalf("the round input is not canonical as written: %v\n%s", err, got)
	}
	return in
}

func asError(t *testing.T, err error) *lc.Error {
	t.Helper()
	var e *lc.Error
	if !errors.As(err, &e) {
		t.Fatalf("want an *lc.Error, got %T %v", err, err)
	}
	return e
}

func TestEncodeHeadWithin(t *testing.T) {
	in := roundInput(t)
	m := roundMessages()
	// R15.8: messages [0, cut), identity and max_summary_tokens unchanged.
	head, err := in.EncodeHeadWithin(5, 1<<20)
	if err != nil || string(head) != roundDoc(m[:5]...) {
		t.Fatalf("head of cut 5: %v\n got %s\nwant %s", err, head, roundDoc(m[:5]...))
	}
	// Fitted as F7.3 fits an input: the tool message stubbed when that is needed.
	stubbed := roundDoc(m[0], m[1], m[2], toolMessage(stubText), m[4])
	head, err = in.EncodeHeadWithin(5, uint64(len(stubbed)))
	if err != nil || string(head) != stubbed {
		t.Fatalf("head of cut 5 under %d bytes: %v\n%s", len(stubbed), err, head)
	}
	for _, c := range []struct {
		cut, max uint64
		want     lc.Status
	}{
		{7, 1 << 20, lc.StatusInvalidArgument},                // above the 6 messages
		{1, 1 << 20, lc.StatusReplacementEmptyHead},           // only the leading system message
		{0, 1 << 20, lc.StatusReplacementEmptyHead},           // nothing at all
		{5, uint64(len(stubbed)) - 1, lc.StatusInputTooLarge}, // nothing else can be stubbed
	} {
		if _, err := in.EncodeHeadWithin(c.cut, c.max); !errors.Is(err, c.want) {
			t.Errorf("EncodeHeadWithin(%d, %d): %v, want %v", c.cut, c.max, err, c.want)
		}
	}
}

func TestValidateReply(t *testing.T) {
	in := roundInput(t)
	opts := lc.ReplyOptions{OutputTokens: 40, Stop: lc.StopEnd, MaxReplyBytes: 4096}
	got, err := in.ValidateReply([]byte(roundSummary), opts)
	if err != nil || got != roundSummary {
		t.Fatalf("bare summary: %q, %v", got, err)
	}

	// R15.5: a fence and a final newline are removed only when asked for.
	fenced := "```xml\n" + roundSummary + "\n```\n"
	if _, err := in.ValidateReply([]byte(fenced), opts); err == nil || asError(t, err).Removed != 0 {
		t.Errorf("fenced reply without cleanup: %v", err)
	}
	clean := opts
	clean.Trim, clean.Unfence = true, true
	if got, err := in.ValidateReply([]byte(fenced), clean); err != nil || got != roundSummary {
		t.Errorf("fenced reply with cleanup: %q, %v", got, err)
	}

	// R15.7: a failure inside the fence is placed in the reply as it arrived: the `<decisions/>`
	// at byte 52 of the text, line 3, is at byte 7 + 52 of the reply, line 4; cleanup reported.
	e := asError(t, mustFail(in.ValidateReply([]byte("```xml\n"+roundRejected+"\n```\n"), clean)))
	if e.Status != lc.StatusSummaryXMLStructure || e.Offset != 59 || e.Line != 4 || e.Column != 1 ||
		e.Location != "summary" || e.Rule != "X4.18" {
		t.Errorf("rejected inside a fence: %v", e)
	}
	if e.Removed != lc.ReplyTrim|lc.ReplyUnfence || e.RemovedBefore != 7 || e.RemovedAfter != 5 {
		t.Errorf("removed %v, %d before, %d after; want trim|unfence, 7, 5", e.Removed, e.RemovedBefore, e.RemovedAfter)
	}
	if !strings.Contains(e.Error(), "removed trim|unfence: 7 bytes before, 5 after") {
		t.Errorf("Error() = %q", e.Error())
	}

	// Bytes that are not UTF-8 (J5.3): a lone surrogate as a WTF-8 string would hold it, and 0xFF.
	surrogate := strings.Replace(roundSummary, "List", "Li\xed\xa0\x80st", 1)
	e = asError(t, mustFail(in.ValidateReply([]byte(surrogate), clean)))
	if e.Status != lc.StatusSummaryWire || e.Offset != uint64(strings.Index(surrogate, "\xed")) || e.Class() != lc.ClassDiscard {
		t.Errorf("lone surrogate: %v", e)
	}
	e = asError(t, mustFail(in.ValidateReply([]byte("\xff"+roundSummary), clean)))
	if e.Status != lc.StatusSummaryWire || e.Offset != 0 || e.Removed != 0 {
		t.Errorf("0xFF first: %v", e)
	}

	// R15.4: stopped by length, accepted when valid, truncated (RETRY, token figures) when not.
	length := opts
	length.Stop = lc.StopLength
	if _, err := in.ValidateReply([]byte(roundSummary), length); err != nil {
		t.Errorf("a valid summary stopped by length: %v", err)
	}
	e = asError(t, mustFail(in.ValidateReply([]byte(roundSummary[:60]), length)))
	if e.Status != lc.StatusReplyTruncated || e.Class() != lc.ClassRetry || e.Rule != "R15.4" ||
		e.Location != "summary" || e.Limit != 64 || e.Actual != 40 {
		t.Errorf("truncated: %v", e)
	}
	if m := e.RetryMessage(); !strings.Contains(m, "cut off") || !strings.Contains(m, "40") {
		t.Errorf("truncated retry message %q", m)
	}

	// R15.2, R15.3 steps 1–4.
	for _, c := range []struct {
		name   string
		opts   lc.ReplyOptions
		status lc.Status
		class  lc.Class
	}{
		{"limit 0", lc.ReplyOptions{OutputTokens: 40, MaxReplyBytes: 0}, lc.StatusReplyByteLimitUnreachable, lc.ClassHost},
		{"limit 113", lc.ReplyOptions{OutputTokens: 40, MaxReplyBytes: 113}, lc.StatusReplyByteLimitUnreachable, lc.ClassHost},
		{"limit one short", lc.ReplyOptions{OutputTokens: 40, MaxReplyBytes: uint64(len(roundSummary)) - 1}, lc.StatusSummaryByteLimit, lc.ClassRetry},
		{"no usage", lc.ReplyOptions{OutputTokens: 0, MaxReplyBytes: 4096}, lc.StatusSummaryTokenUsage, lc.ClassDiscard},
		{"65 tokens", lc.ReplyOptions{OutputTokens: 65, MaxReplyBytes: 4096}, lc.StatusSummaryTokenLimit, lc.ClassRetry},
		{"stop 9", lc.ReplyOptions{OutputTokens: 40, MaxReplyBytes: 4096, Stop: 9}, lc.StatusInvalidArgument, lc.ClassHost},
	} {
		err := mustFail(in.ValidateReply([]byte(roundSummary), c.opts))
		if !errors.Is(err, c.status) || !errors.Is(err, c.class) {
			t.Errorf("%s: %v, want %v of class %v", c.name, err, c.status, c.class)
		}
	}
	e = asError(t, mustFail(in.ValidateReply([]byte(roundSummary), lc.ReplyOptions{OutputTokens: 40, MaxReplyBytes: 100})))
	if e.Limit != 100 || e.Actual != lc.SmallestSummaryLen || e.Rule != "R15.2" || !strings.Contains(e.RetryMessage(), "No retry is useful") {
		t.Errorf("unreachable limit: %v", e)
	}
	if lc.SmallestSummaryLen != len(`<conversation_summary><goal>.</goal><constraints/><decisions/><state>.</state><open_items/></conversation_summary>`) {
		t.Errorf("SmallestSummaryLen = %d", lc.SmallestSummaryLen)
	}
}

// R15.2: ValidateOutput's byte_limit below the shortest envelope that can pass is the host's.
func TestValidateOutputUnreachableLimitIsHost(t *testing.T) {
	in, _ := lc.ParseInput([]byte(testWire))
	defer in.Close()
	// The envelope is the identity (about 250 bytes) around at least 114 bytes of summary.
	err := mustFail(in.ValidateOutput(testOutput(), 10, 300))
	if !errors.Is(err, lc.StatusSummaryByteLimit) || !errors.Is(err, lc.ClassHost) || errors.Is(err, lc.ClassRetry) {
		t.Errorf("limit 300: %v (class %v)", err, asError(t, err).Class())
	}
	if m := asError(t, err).RetryMessage(); !strings.Contains(m, "No retry is useful") {
		t.Errorf("limit 300: retry message %q", m)
	}
	err = mustFail(in.ValidateOutput(testOutput(), 10, uint64(len(testOutput()))-1))
	if !errors.Is(err, lc.ClassRetry) {
		t.Errorf("limit one short: %v", err)
	}
}

func mustFail[T any](_ T, err error) error {
	if err == nil {
		return errors.New("no error")
	}
	return err
}

func TestBuildAndVerifyReplacement(t *testing.T) {
	in := roundInput(t)
	// R15.9: cut 5 keeps the user message 5, whose block joins the summary message.
	want := `[` + m0System + `,` + summaryMessage(roundSummary, `{"type":"text","text":"now ship it"}`) + `]`
	got, err := in.BuildReplacement(5, roundSummary)
	if err != nil || string(got) != want {
		t.Fatalf("BuildReplacement(5):\n got %s\nwant %s (%v)", got, want, err)
	}
	if err := in.VerifyReplacement(5, got); err != nil {
		t.Errorf("VerifyReplacement of the build: %v", err)
	}
	// Cut 4 keeps the answer and the user turn after the summary message.
	want = `[` + m0System + `,` + summaryMessage(roundSummary) + `,` + m4Answer + `,` + m5User + `]`
	got, err = in.BuildReplacement(4, roundSummary)
	if err != nil || string(got) != want {
		t.Fatalf("BuildReplacement(4):\n got %s\nwant %s (%v)", got, want, err)
	}
	// Another spelling of the same JSON is no change (R15.11).
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, got, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := in.VerifyReplacement(4, pretty.Bytes()); err != nil {
		t.Errorf("VerifyReplacement of the indented build: %v", err)
	}

	// R15.10, in order.
	for _, c := range []struct {
		cut     uint64
		summary string
		want    lc.Status
	}{
		{7, roundSummary, lc.StatusInvalidArgument},
		{1, roundSummary, lc.StatusReplacementEmptyHead},
		{3, roundSummary, lc.StatusCutUnsafe}, // c1's call in 2, its result in 3
		{5, roundRejected, lc.StatusReplacementSummary},
	} {
		if _, err := in.BuildReplacement(c.cut, c.summary); !errors.Is(err, c.want) {
			t.Errorf("BuildReplacement(%d): %v, want %v", c.cut, err, c.want)
		}
	}
	e := asError(t, mustFail(in.BuildReplacement(5, roundRejected)))
	if e.Location != "summary" || e.Line != 3 || e.Column != 1 || e.Offset != 52 || e.Rule != "X4.18" {
		t.Errorf("a summary that does not validate: %v", e)
	}

	// R15.11 step 4: the summary message alone, then the kept user message on its own.
	adjacent := `[` + m0System + `,` + summaryMessage(roundSummary) + `,` + m5User + `]`
	e = asError(t, in.VerifyReplacement(5, []byte(adjacent)))
	if e.Status != lc.StatusReplacementAdjacentUser || !strings.HasPrefix(e.Location, "transcript[2]") {
		t.Errorf("adjacent user messages: %v", e)
	}
	// Step 2: the system message changed.
	changed := strings.Replace(want, "be brief", "be Brief", 1)
	e = asError(t, in.VerifyReplacement(4, []byte(changed)))
	if e.Status != lc.StatusReplacementPrefixChanged || !strings.HasPrefix(e.Location, "transcript[0]") {
		t.Errorf("changed system message: %v", e)
	}
	// Step 1: not a transcript.
	e = asError(t, in.VerifyReplacement(4, []byte(`[{"role":"user"}]`)))
	if e.Status != lc.StatusReplacementWire || !strings.HasPrefix(e.Location, "transcript") {
		t.Errorf("not a transcript: %v", e)
	}
}

// A signed thinking block in the kept tail: one changed byte of its signature, or the block after
// it dropped, is found at its message and block (R15.11 step 5).
func TestVerifyReplacementFindsATamperedSignature(t *testing.T) {
	wire, err := os.ReadFile("../../examples/data/input_valid.json")
	if err != nil {
		t.Fatal(err)
	}
	in := mustParse(t, wire)
	// Cut 2: the system message and the request are before it; kept: [2, 5), the assistant
	// message with the thinking block (block 0) and the tool call (block 1) first.
	built, err := in.BuildReplacement(2, roundSummary)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.VerifyReplacement(2, built); err != nil {
		t.Fatalf("the build does not verify: %v", err)
	}
	const signature = "EqQBCkYIBRgCKkBvZ2FsOiBmaW5kIHRoZSBjYXVzZQ=="
	if bytes.Count(built, []byte(signature)) != 1 {
		t.Fatalf("the signature is not in the replacement once:\n%s", built)
	}
	for i := 0; i < len(signature); i++ {
		tampered := bytes.Replace(built, []byte(signature), []byte(signature[:i]+"x"+signature[i+1:]), 1)
		if signature[i] == 'x' {
			continue
		}
		e := asError(t, in.VerifyReplacement(2, tampered))
		if e.Status != lc.StatusReplacementTailChanged || e.Location != "transcript[2].blocks[0]" {
			t.Fatalf("signature byte %d changed: %v", i, e)
		}
		if strings.Contains(e.Error(), signature[:8]) {
			t.Fatalf("the diagnosis echoes the signature: %v", e)
		}
	}
	// The tool call dropped: the first block missing is block 1 of message 2.
	call := `,{"type":"tool_use","id":"toolu_01","name":"run_tests","input":{"filter":"parse_config","verbose":true}}`
	if !bytes.Contains(built, []byte(call)) {
		t.Fatalf("the tool call is not in the replacement as expected:\n%s", built)
	}
	e := asError(t, in.VerifyReplacement(2, bytes.Replace(built, []byte(call), nil, 1)))
	if e.Status != lc.StatusReplacementTailChanged || e.Location != "transcript[2].blocks[1]" {
		t.Errorf("tool call dropped: %v", e)
	}
}

// TestOutputsLongerThanTheirDocument: 20,000 raw `<` in the user's request and in the kept tool
// result are six bytes each in canonical encoding (E7.6 `\u003c`), so every output is far longer
// than the wire document and the package's first buffer (sized from the document) is too small:
// the exact size follows.
func TestOutputsLongerThanTheirDocument(t *testing.T) {
	lts := strings.Repeat("<", 20000)
	user := `{"role":"user","blocks":[{"type":"text","text":"` + lts + `"}]}`
	messages := []string{m0System, user, m2Call, toolMessage(lts), m4Answer}
	canonical := func(ms ...string) []string {
		out := make([]string, len(ms))
		for i, m := range ms {
			out[i] = strings.ReplaceAll(m, "<", `\u003c`)
		}
		return out
	}
	in := mustParse(t, []byte(roundDoc(messages...)))
	whole, err := in.EncodeWithin(math.MaxUint64)
	if want := roundDoc(canonical(messages...)...); err != nil || string(whole) != want {
		t.Fatalf("EncodeWithin: %v, %d bytes, want %d", err, len(whole), len(want))
	}
	head, err := in.EncodeHeadWithin(2, math.MaxUint64)
	if want := roundDoc(canonical(messages[:2]...)...); err != nil || string(head) != want {
		t.Fatalf("EncodeHeadWithin(2): %v, %d bytes, want %d", err, len(head), len(want))
	}
	got, err := in.BuildReplacement(2, roundSummary)
	want := "[" + strings.Join(append([]string{m0System, summaryMessage(roundSummary)}, canonical(messages[2:]...)...), ",") + "]"
	if err != nil || string(got) != want {
		t.Fatalf("BuildReplacement(2): %v, %d bytes, want %d", err, len(got), len(want))
	}
}
