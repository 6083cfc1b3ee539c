package loopcompact_test

// The converters (SPEC §16) through the Go wrappers: every fixture of tests/convert/fixtures,
// split into the arguments a Go host holds (messages and system parameter apart), gives what
// tests/convert/pinned.jsonl pins (written by the Rust test tests/convert/pinned.rs, reviewed as a
// diff); Compacted.Messages against lists written by hand; the never-blocking round on a pending
// tail; refusals with their place and without the input's bytes.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// pinnedConversion is one line of tests/convert/pinned.jsonl.
type pinnedConversion struct {
	Name               string            `json:"name"`
	Format             string            `json:"format"`
	TranscriptLen      int               `json:"transcript_len"`
	TranscriptSHA256   string            `json:"transcript_sha256"`
	SourceIndex        []*int            `json:"source_index"`
	CutAllowed         []bool            `json:"cut_allowed"`
	SourceCuts         []*int            `json:"source_cuts"`
	SourceLen          int               `json:"source_len"`
	Losses             []json.RawMessage `json:"losses"`
	RequestFingerprint string            `json:"request_fingerprint"`
	ThroughEventID     string            `json:"through_event_id"`
}

func readPinned(t *testing.T) map[string]pinnedConversion {
	t.Helper()
	f, err := os.Open("../../tests/convert/pinned.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]pinnedConversion{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p pinnedConversion
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		out[p.Name] = p
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// fixture is one file of tests/convert/fixtures: its format and the source's exact bytes.
type fixture struct {
	Format string          `json:"format"`
	Source json.RawMessage `json:"source"`
}

func readFixture(t *testing.T, name string) fixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../tests/convert/fixtures", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// members is a source document's members, each value's exact bytes.
func members(t *testing.T, doc json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// convertFixture converts a fixture as a Go host would call the package: the list and the system
// parameter as separate arguments. It returns the conversion and the source list.
func convertFixture(t *testing.T, f fixture) (*lc.Conversion, []byte) {
	t.Helper()
	var c *lc.Conversion
	var list []byte
	var err error
	switch f.Format {
	case "openai_chat":
		list = f.Source
		c, err = lc.FromOpenAIChat(list)
	case "langchain":
		list = f.Source
		c, err = lc.FromLangChain(list)
	case "ai_sdk":
		list = f.Source
		c, err = lc.FromModelMessages(list)
	case "openai_responses":
		m := members(t, f.Source)
		var instructions string
		if raw, ok := m["instructions"]; ok {
			if err := json.Unmarshal(raw, &instructions); err != nil {
				t.Fatal(err)
			}
		}
		list = m["input"]
		c, err = lc.FromOpenAIResponses(list, instructions)
	case "anthropic":
		m := members(t, f.Source)
		list = m["messages"]
		c, err = lc.FromAnthropic(list, m["system"])
	case "gemini":
		m := members(t, f.Source)
		list = m["contents"]
		system := m["system_instruction"]
		if system == nil {
			system = m["systemInstruction"]
		}
		c, err = lc.FromGemini(list, system)
	default:
		t.Fatalf("unknown format %s", f.Format)
	}
	if err != nil {
		t.Fatalf("%s: %v", f.Format, err)
	}
	return c, list
}

func TestEveryFixtureConvertsAsPinned(t *testing.T) {
	pinned := readPinned(t)
	names, err := filepath.Glob("../../tests/convert/fixtures/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 50 || len(names) != len(pinned) {
		t.Fatalf("%d fixtures, %d pinned conversions", len(names), len(pinned))
	}
	for _, path := range names {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		want, ok := pinned[name]
		if !ok {
			t.Errorf("%s: not pinned", name)
			continue
		}
		f := readFixture(t, name)
		c, _ := convertFixture(t, f)
		if c.Format().String() != want.Format {
			t.Errorf("%s: format %s, pinned %s", name, c.Format(), want.Format)
		}
		sum := sha256.Sum256(c.Transcript())
		if len(c.Transcript()) != want.TranscriptLen || hex.EncodeToString(sum[:]) != want.TranscriptSHA256 {
			t.Errorf("%s: the transcript (%d bytes) is not the pinned one (%d bytes)", name, len(c.Transcript()), want.TranscriptLen)
		}
		wantIndex := make([]int, len(want.SourceIndex))
		for i, v := range want.SourceIndex {
			wantIndex[i] = lc.SourceSystem
			if v != nil {
				wantIndex[i] = *v
			}
		}
		if got := c.SourceIndex(); !reflect.DeepEqual(got, wantIndex) {
			t.Errorf("%s: source index %v, pinned %v", name, got, wantIndex)
		}
		if got := c.CutAllowed(); !reflect.DeepEqual(got, want.CutAllowed) {
			t.Errorf("%s: cut allowed %v, pinned %v", name, got, want.CutAllowed)
		}
		if c.SourceLen() != want.SourceLen {
			t.Errorf("%s: source length %d, pinned %d", name, c.SourceLen(), want.SourceLen)
		}
		for cut, s := range want.SourceCuts {
			got, err := c.SourceCut(uint64(cut))
			switch {
			case s == nil && !errors.Is(err, lc.StatusCutUnsafe):
				t.Errorf("%s: cut %d is not allowed, SourceCut gives %d, %v", name, cut, got, err)
			case s != nil && (err != nil || got != *s):
				t.Errorf("%s: source cut of %d is %d (%v), pinned %d", name, cut, got, err, *s)
			}
		}
		if _, err := c.SourceCut(uint64(len(want.SourceCuts))); !errors.Is(err, lc.StatusInvalidArgument) {
			t.Errorf("%s: a cut past the end gives %v", name, err)
		}
		var losses []string
		for _, l := range c.Losses() {
			where := "null"
			if l.SourceIndex != lc.SourceSystem {
				where = strings.TrimSpace(string(mustJSON(t, l.SourceIndex)))
			}
			if l.Name != l.Code.Name() {
				t.Errorf("%s: loss %v named %q", name, l.Code, l.Name)
			}
			losses = append(losses, "["+where+`,"`+l.Name+`"]`)
		}
		var wantLosses []string
		for _, l := range want.Losses {
			wantLosses = append(wantLosses, string(l))
		}
		if !reflect.DeepEqual(losses, wantLosses) {
			t.Errorf("%s: losses %v, pinned %v", name, losses, wantLosses)
		}
		// The identity Input mints: the pinned fingerprint and event id.
		in, err := c.Input(lc.InputOptions{Provider: "provider", Model: "model", MaxSummaryTokens: 1000, Revision: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wire, err := in.EncodeWithin(1 << 62)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Basis struct {
				Revision       int    `json:"revision"`
				ThroughEventID string `json:"through_event_id"`
			} `json:"basis"`
			RequestFingerprint string `json:"request_fingerprint"`
		}
		if err := json.Unmarshal(wire, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.RequestFingerprint != want.RequestFingerprint || doc.Basis.ThroughEventID != want.ThroughEventID || doc.Basis.Revision != 1 {
			t.Errorf("%s: identity %+v, pinned %s %s", name, doc, want.RequestFingerprint, want.ThroughEventID)
		}
		in.Close()
		c.Close()
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// summaryJSON is testSummary as a JSON string (it holds no character JSON must escape).
const summaryJSON = `"` + testSummary + `"`

// accept is a CallModel whose every reply is testSummary.
func accept(context.Context, lc.SummaryRequest) (lc.SummaryReply, error) {
	return lc.SummaryReply{Text: testSummary, OutputTokens: 40, Stop: lc.StopEnd}, nil
}

// round converts with conv, runs Compact keeping keepLast and returns the result.
func round(t *testing.T, c *lc.Conversion, opts lc.CompactOptions) lc.CompactResult {
	t.Helper()
	in, err := c.Input(lc.InputOptions{Provider: "openai", Model: "gpt-x", MaxSummaryTokens: 1000, Revision: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	res, err := lc.Compact(context.Background(), in, accept, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func asCompacted(t *testing.T, res lc.CompactResult) *lc.Compacted {
	t.Helper()
	r, ok := res.(*lc.Compacted)
	if !ok {
		t.Fatalf("the round kept the history: %+v", res)
	}
	return r
}

func TestMessagesChat(t *testing.T) {
	// The fixture: five messages, the last an assistant message. Keeping one, the cut is 4.
	f := readFixture(t, "openai_chat__parallel_tools")
	c, list := convertFixture(t, f)
	defer c.Close()
	r := asCompacted(t, round(t, c, lc.CompactOptions{KeepLast: 1}))
	if s, ok := r.SourceCut(); r.Cut != 4 || !ok || s != 4 {
		t.Fatalf("cut %d, source cut %d %v", r.Cut, s, ok)
	}
	got, err := r.Messages(list)
	if err != nil {
		t.Fatal(err)
	}
	// Message 4 as the fixture file writes it (one-space indentation, keys in its order).
	want := `[{"role":"user","content":` + summaryJSON + `},{
   "content": "Paris 18C, Oslo 4C.",
   "refusal": null,
   "role": "assistant",
   "annotations": []
  }]`
	if string(got) != want {
		t.Errorf("Messages:\n%s\nwant\n%s", got, want)
	}

	// A list of its own: a leading system message kept, the user message at the cut merged.
	src := []byte(`[ {"role":"developer","content":"Be brief."},
		{"role":"user","content":"Hi"}, {"role":"assistant","content":"Hello."},
		{"content": "Plan my day.", "name": "ann", "role": "user"} ]`)
	c2, err := lc.FromOpenAIChat(src)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	r2 := asCompacted(t, round(t, c2, lc.CompactOptions{KeepLast: 1}))
	got, err = r2.Messages(src)
	if err != nil {
		t.Fatal(err)
	}
	want = `[{"role":"developer","content":"Be brief."},{"content":[{"type":"text","text":` + summaryJSON +
		`},{"type":"text","text":"Plan my day."}],"name":"ann","role":"user"}]`
	if r2.Cut != 3 || string(got) != want {
		t.Errorf("cut %d, Messages:\n%s\nwant\n%s", r2.Cut, got, want)
	}
	// Another list is refused, saying lengths only.
	if _, err := r2.Messages([]byte(`[{"role":"user","content":"secret"}]`)); !errors.Is(err, lc.ErrSourceMismatch) ||
		strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "1 elements") {
		t.Errorf("another list: %v", err)
	}
	if _, err := r2.Messages([]byte(`{"messages":[]}`)); !errors.Is(err, lc.ErrSourceMismatch) {
		t.Errorf("an object: %v", err)
	}
}

func TestMessagesAnthropic(t *testing.T) {
	// The fixture: the user message at index 2 opens with two tool results (three wire messages,
	// no cut inside). Keeping two wire messages the cut is 1, before the calls.
	f := readFixture(t, "anthropic__parallel_tools")
	c, list := convertFixture(t, f)
	defer c.Close()
	r := asCompacted(t, round(t, c, lc.CompactOptions{KeepLast: 2}))
	if s, ok := r.SourceCut(); r.Cut != 1 || s != 1 || !ok {
		t.Fatalf("cut %d, source cut %d", r.Cut, s)
	}
	got, err := r.Messages(list)
	if err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(got, &items); err != nil || len(items) != 4 {
		t.Fatalf("%d messages, %v", len(items), err)
	}
	if string(items[0]) != `{"role":"user","content":`+summaryJSON+`}` {
		t.Errorf("summary message %s", items[0])
	}
	// The last message as the fixture file writes it.
	if string(items[3]) != `{
    "role": "assistant",
    "content": [
     {
      "text": "Paris.",
      "type": "text"
     }
    ]
   }` {
		t.Errorf("message 3 changed: %s", items[3])
	}
	// The results' message is kept whole (its tool results are wire messages 2 and 3).
	if !bytes.Contains(list, items[1]) || !bytes.Contains(list, items[2]) || !bytes.Contains(items[2], []byte(`"Also: which is warmer?"`)) {
		t.Errorf("kept messages changed")
	}

	// The system parameter stays the host's; the user message at the cut is merged.
	src := []byte(`[{"role":"user","content":"Hi."},{"role":"assistant","content":[{"type":"text","text":"Hello."}]},` +
		`{"role":"user","content":[{"type":"text","text":"Plan my day.","cache_control":{"type":"ephemeral"}}]}]`)
	c2, err := lc.FromAnthropic(src, []byte(`"Be brief."`))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if want := []int{lc.SourceSystem, 0, 1, 2}; !reflect.DeepEqual(c2.SourceIndex(), want) {
		t.Fatalf("source index %v", c2.SourceIndex())
	}
	if l := c2.Losses(); len(l) != 1 || l[0] != (lc.Loss{SourceIndex: 2, Code: lc.LossDroppedCacheControl, Name: "dropped_cache_control"}) {
		t.Errorf("losses %+v", l)
	}
	r2 := asCompacted(t, round(t, c2, lc.CompactOptions{KeepLast: 1}))
	got, err = r2.Messages(src)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"user","content":[{"type":"text","text":` + summaryJSON +
		`},{"type":"text","text":"Plan my day.","cache_control":{"type":"ephemeral"}}]}]`
	if r2.Cut != 3 || string(got) != want {
		t.Errorf("cut %d, Messages:\n%s\nwant\n%s", r2.Cut, got, want)
	}
}

func TestMessagesNeedsAConversion(t *testing.T) {
	c, err := lc.FromOpenAIChat([]byte(`[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	converted, err := c.Input(lc.InputOptions{Provider: "p", Model: "m", MaxSummaryTokens: 100, Revision: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer converted.Close()
	wire, err := converted.EncodeWithin(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	// The same input as a wire document has no source.
	in, err := lc.ParseInput(wire)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	res, err := lc.Compact(context.Background(), in, accept, lc.CompactOptions{KeepLast: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := asCompacted(t, res)
	if _, err := r.Messages([]byte(`[]`)); !errors.Is(err, lc.ErrNotConverted) {
		t.Errorf("Messages on a parsed input: %v", err)
	}
	if _, ok := r.SourceCut(); ok {
		t.Errorf("a source cut on a parsed input")
	}
}

// A pending tail (the last assistant turn waits for its results) does not block the round: the
// cut is before that turn, which the new list keeps byte for byte (SPEC G16.13).
func TestPendingTailRoundNeverBlocks(t *testing.T) {
	f := readFixture(t, "openai_chat__pending_tail")
	c, list := convertFixture(t, f)
	defer c.Close()
	r := asCompacted(t, round(t, c, lc.CompactOptions{}))
	if r.Cut != 3 {
		t.Fatalf("cut %d, want 3 (the pending assistant message)", r.Cut)
	}
	got, err := r.Messages(list)
	if err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(got, &items); err != nil || len(items) != 2 {
		t.Fatalf("%s: %v", got, err)
	}
	var source []json.RawMessage
	if err := json.Unmarshal(list, &source); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(items[1], source[3]) || !bytes.Contains(items[1], []byte(`"call_ls_var"`)) {
		t.Errorf("the pending turn changed: %s", items[1])
	}
	// §14's verdict on request: the history is kept, with the unanswered call's status.
	k, ok := round(t, c, lc.CompactOptions{NoPendingTail: true}).(*lc.KeepHistory)
	if !ok || k.Status != lc.StatusPairingUnansweredCall {
		t.Errorf("NoPendingTail: %+v", k)
	}
}

func TestConversionRefusals(t *testing.T) {
	for _, tc := range []struct {
		name     string
		convert  func() (*lc.Conversion, error)
		status   lc.Status
		location string
		offset   uint64
	}{
		{"not JSON", func() (*lc.Conversion, error) {
			return lc.FromOpenAIChat([]byte(`[{"role":"user","content":"secret-1"}`))
		}, lc.StatusConvertWire, "messages", 37},
		{"unknown role", func() (*lc.Conversion, error) {
			return lc.FromOpenAIChat([]byte(`[{"role":"user","content":"a"},{"role":"secret-2","content":"b"}]`))
		}, lc.StatusConvertShape, "messages[1].role", 39},
		// The offset counts bytes of the argument given, not of the document the package built.
		{"anthropic role", func() (*lc.Conversion, error) {
			return lc.FromAnthropic([]byte(`[{"role":"secret-3","content":"b"}]`), []byte(`"sys"`))
		}, lc.StatusConvertShape, "messages[0].role", 9},
		{"anthropic system", func() (*lc.Conversion, error) {
			return lc.FromAnthropic([]byte(`[{"role":"user","content":"b"}]`), []byte(`{"secret-4":1}`))
		}, lc.StatusConvertShape, "system", 0},
		{"messages cut short", func() (*lc.Conversion, error) {
			return lc.FromGemini([]byte(`[{"role":"user","parts":[{"text":"secret-5"}]}`), nil)
		}, lc.StatusConvertWire, "contents", 46},
		{"strict", func() (*lc.Conversion, error) {
			return lc.Convert(lc.FormatOpenAIChat, []byte(`[{"role":"user","content":"secret-6","name":"n"}]`), lc.ConvertOptions{Strict: true})
		}, lc.StatusConvertLoss, "messages[0]", 1},
	} {
		c, err := tc.convert()
		var e *lc.Error
		if c != nil || !errors.As(err, &e) || e.Status != tc.status {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if e.Location != tc.location || e.Offset != tc.offset || e.Class() != lc.ClassHost {
			t.Errorf("%s: at %q offset %d (line %d, column %d), want %q offset %d", tc.name, e.Location, e.Offset, e.Line, e.Column, tc.location, tc.offset)
		}
		if e.Line != 1 || e.Column != e.Offset+1 {
			t.Errorf("%s: line %d column %d for offset %d", tc.name, e.Line, e.Column, e.Offset)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error echoes the input: %v", tc.name, err)
		}
	}
	if _, err := lc.Convert(lc.Format(9), []byte(`[]`), lc.ConvertOptions{}); !errors.Is(err, lc.StatusInvalidArgument) {
		t.Errorf("format 9: %v", err)
	}
}

func TestConversionInputAndClose(t *testing.T) {
	c, err := lc.FromOpenAIChat([]byte(`[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts   lc.InputOptions
		status lc.Status
	}{
		{lc.InputOptions{Provider: "p", Model: "m", MaxSummaryTokens: 10}, lc.StatusInputBasis},
		{lc.InputOptions{Model: "m", MaxSummaryTokens: 10, Revision: 1}, lc.StatusInputModel},
		{lc.InputOptions{Provider: "p", Model: "m", Revision: 1}, lc.StatusInputMaxSummaryTokens},
		{lc.InputOptions{Provider: "p", Model: "m", MaxSummaryTokens: 10, Revision: 1, Fingerprint: &lc.Fingerprint{}}, lc.StatusInputRequestFingerprint},
		{lc.InputOptions{Provider: "p\xff", Model: "m", MaxSummaryTokens: 10, Revision: 1}, lc.StatusInvalidArgument},
	} {
		if _, err := c.Input(tc.opts); !errors.Is(err, tc.status) {
			t.Errorf("%+v: %v, want %s", tc.opts, err, tc.status)
		}
	}
	own := lc.Fingerprint{7, 7, 7}
	in, err := c.Input(lc.InputOptions{Provider: "p", Model: "m", MaxSummaryTokens: 10, Revision: 1, Fingerprint: &own})
	if err != nil {
		t.Fatal(err)
	}
	wire, _ := in.EncodeWithin(1 << 20)
	if !bytes.Contains(wire, []byte(`"request_fingerprint":"`+own.String()+`"`)) {
		t.Errorf("the host's fingerprint was not used: %s", wire)
	}
	transcript := c.Transcript()
	c.Close()
	c.Close()
	// What was read stays; the handle's calls say it is closed; the Input lives on.
	if !bytes.Equal(c.Transcript(), transcript) || c.SourceLen() != 2 || len(c.CutAllowed()) != 3 {
		t.Errorf("fields lost on Close")
	}
	if _, err := c.SourceCut(0); !errors.Is(err, lc.ErrConversionClosed) {
		t.Errorf("SourceCut after Close: %v", err)
	}
	if _, err := c.Input(lc.InputOptions{Provider: "p", Model: "m", MaxSummaryTokens: 10, Revision: 1}); !errors.Is(err, lc.ErrConversionClosed) {
		t.Errorf("Input after Close: %v", err)
	}
	if n, err := in.MessageCount(); n != 2 || err != nil {
		t.Errorf("the input after its conversion was closed: %d %v", n, err)
	}
	in.Close()
}
