package loopcompact_test

// CompactStream (SPEC T17.6) against scripted streamed replies: a reply dead in a chunk is not
// read further (its stream closed, its usage never asked) and counts as an attempt with its
// diagnosis; what cleanup removes before the summary is skipped; the byte limit; errors of the
// stream; structured replies gathered to the end; and, over the vectors' summaries cut at every
// chunk size, that a reply read to the end gets Compact's verdict of the whole reply and an
// aborted one is a reply Compact rejects. Expected values are worked out from the SPEC.

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// streamed is a scripted streamed reply: it yields its chunks one by one (then err, when set),
// counting those read, and records whether Chunks returned before its end and Usage's calls.
type streamed struct {
	chunks     []string
	err        error // yielded after the chunks, when set
	usage      lc.SummaryUsage
	usageErr   error
	read       int
	ranged     int  // calls of Chunks
	returned   bool // Chunks returned (the provider's stream closed)
	exhausted  bool // every chunk was yielded and accepted
	usageCalls int
}

func newStreamed(chunks ...string) *streamed {
	return &streamed{chunks: chunks, usage: lc.SummaryUsage{OutputTokens: 30, Stop: lc.StopEnd}}
}

func (s *streamed) reply() lc.SummaryReplyStream {
	return lc.SummaryReplyStream{
		Chunks: func(yield func(string, error) bool) {
			s.ranged++
			defer func() { s.returned = true }()
			for _, c := range s.chunks {
				s.read++
				if !yield(c, nil) {
					return
				}
			}
			if s.err != nil {
				yield("", s.err)
				return
			}
			s.exhausted = true
		},
		Usage: func() (lc.SummaryUsage, error) {
			s.usageCalls++
			return s.usage, s.usageErr
		},
	}
}

// stopped reports a stream the round stopped reading: Chunks returned early, Usage never called.
func (s *streamed) stopped() bool {
	return s.ranged == 1 && s.returned && !s.exhausted && s.usageCalls == 0
}

// readToEnd reports a stream read to its end, then its Usage asked once.
func (s *streamed) readToEnd() bool {
	return s.ranged == 1 && s.returned && s.exhausted && s.read == len(s.chunks) && s.usageCalls == 1
}

func (s *streamed) bytesRead() int {
	n := 0
	for _, c := range s.chunks[:s.read] {
		n += len(c)
	}
	return n
}

// streamModel answers each request with the next streamed reply, recording the requests.
type streamModel struct {
	t        *testing.T
	replies  []*streamed
	requests []lc.SummaryRequest
}

func (m *streamModel) call(_ context.Context, req lc.SummaryRequest) (lc.SummaryReplyStream, error) {
	m.requests = append(m.requests, req)
	if len(m.requests) > len(m.replies) {
		m.t.Fatalf("the model was called %d times; the script has %d replies", len(m.requests), len(m.replies))
	}
	return m.replies[len(m.requests)-1].reply(), nil
}

func streamRound(t *testing.T, opts lc.CompactOptions, replies ...*streamed) (lc.CompactResult, error, *streamModel, []lc.Attempt) {
	t.Helper()
	in := roundInput(t)
	m := &streamModel{t: t, replies: replies}
	var seen []lc.Attempt
	opts.OnAttempt = func(a lc.Attempt) { seen = append(seen, a) }
	res, err := lc.CompactStream(context.Background(), in, m.call, opts)
	return res, err, m, seen
}

func chunked(text string, size int) []string {
	var out []string
	for i := 0; i < len(text); i += size {
		out = append(out, text[i:min(i+size, len(text))])
	}
	return out
}

func TestCompactStreamAbortsADeadReplyThenAcceptsTheNext(t *testing.T) {
	// roundRejected lacks <constraints>: after "</goal>\n" the next element must be <constraints>,
	// so the reply dies at the "d" of "<decisions" (T17.3), in the second chunk. Its diagnosis
	// names the start tag at its "<": byte 52 of the summary, 59 of the reply behind the 7-byte
	// fence line, on line 4 of the reply (the fence line, the root's line, the goal's line before
	// it), column 1.
	doomed := newStreamed(
		"```xml\n<conversation_summary>\n<goal>List the files.</goal>\n",
		"<decisions/><state>done</state>",
		"<open_items/>\n</conversation_summary>",
		"\n```\n",
	)
	// A fenced reply led by White_Space (two spaces and an LF), cut every 5 bytes: the lead
	// (3 bytes) and the fence line (7) are skipped, so nothing dies and the reply is accepted.
	goodText := "  \n```xml\n" + roundSummary + "\n```\n"
	good := newStreamed(chunked(goodText, 5)...)
	res, err, m, seen := streamRound(t, lc.CompactOptions{KeepLast: 1}, doomed, good)
	c := compacted(t, res, err)
	if c.Summary != roundSummary || c.Cut != 5 {
		t.Errorf("summary %q, cut %d", c.Summary, c.Cut)
	}
	checkRecords(t, c.Attempts, seen, c.Diagnoses, m.requests)

	// The doomed reply: two chunks read (59 + 31 bytes), then Chunks returned, Usage never called.
	if doomed.read != 2 || !doomed.stopped() {
		t.Errorf("doomed stream: read %d, %+v", doomed.read, doomed)
	}
	a1 := c.Attempts[0]
	if !a1.Aborted || a1.ReplyBytes != 90 || a1.ReplyBytes != doomed.bytesRead() || a1.Stop != lc.StopUnknown {
		t.Errorf("attempt 1: aborted %v, %d bytes, stop %v", a1.Aborted, a1.ReplyBytes, a1.Stop)
	}
	d := a1.Diagnosis
	if a1.Status != lc.StatusSummaryXMLStructure || a1.Class != lc.ClassRetry || d == nil ||
		d.Status != lc.StatusSummaryXMLStructure || d.Section != lc.SectionConstraints || d.Rule != "X4.18" ||
		d.Expected != "<constraints>" || d.Offset != 59 || d.Line != 4 || d.Column != 1 || d.Location != "summary" {
		t.Fatalf("attempt 1: %+v, diagnosis %+v", a1, d)
	}
	// Only the fence line was skipped before the summary (no White_Space led the reply).
	if a1.Removed != lc.ReplyUnfence || a1.RemovedBefore != 7 || a1.RemovedAfter != 0 {
		t.Errorf("attempt 1 removed %v, %d before, %d after", a1.Removed, a1.RemovedBefore, a1.RemovedAfter)
	}
	// Class RETRY: the next request holds the withheld reply and that diagnosis's retry message.
	second := m.requests[1]
	if len(second.Messages) != 3 || second.Messages[1].Content != lc.WithheldReply ||
		second.Messages[2] != (lc.ChatMessage{Role: "user", Content: d.RetryMessage()}) ||
		!strings.Contains(second.Messages[2].Content, "line 4, column 1") {
		t.Errorf("second request %+v", second.Messages)
	}

	// The good reply: read to the end, Usage asked once, accepted with what cleanup removed:
	// 3 + 7 bytes before, "\n```\n" (5 bytes) after.
	if !good.readToEnd() {
		t.Errorf("good stream: %+v", good)
	}
	a2 := c.Attempts[1]
	if a2.Aborted || a2.Status != lc.StatusOK || a2.ReplyBytes != len(goodText) || a2.Stop != lc.StopEnd ||
		a2.Removed != lc.ReplyTrim|lc.ReplyUnfence || a2.RemovedBefore != 10 || a2.RemovedAfter != 5 {
		t.Errorf("attempt 2: %+v", a2)
	}
}

func TestCompactStreamReshowsTheBytesRead(t *testing.T) {
	doomed := newStreamed("Here is", " the summary:\n", roundSummary)
	res, err, m, _ := streamRound(t, lc.CompactOptions{KeepLast: 1, ReshowRejected: true}, doomed, newStreamed(roundSummary))
	c := compacted(t, res, err)
	// "H" is no White_Space, no fence and no "<": dead at byte 0, in the first chunk.
	if doomed.read != 1 || !doomed.stopped() || c.Attempts[0].ReplyBytes != 7 || c.Attempts[0].Diagnosis.Offset != 0 {
		t.Errorf("read %d, attempt 1 %+v", doomed.read, c.Attempts[0])
	}
	if got := m.requests[1].Messages[1]; got != (lc.ChatMessage{Role: "assistant", Content: "Here is"}) {
		t.Errorf("reshown turn %+v", got)
	}
}

func TestCompactStreamWithoutCleanupDiesAtAFence(t *testing.T) {
	s := newStreamed(chunked("```xml\n"+roundSummary+"\n```\n", 16)...)
	res, err, _, _ := streamRound(t, lc.CompactOptions{KeepLast: 1, Attempts: 1, NoUnfence: true}, s)
	k := keptHistory(t, res, err)
	a := k.Attempts[0]
	// Without unfence the backtick is character data before the root (X4.18: xml_structure),
	// dead at byte 0.
	if !a.Aborted || s.read != 1 || !s.stopped() || a.Status != lc.StatusSummaryXMLStructure || a.Diagnosis.Rule != "X4.18" ||
		a.Diagnosis.Offset != 0 || a.Diagnosis.Line != 1 || a.Diagnosis.Column != 1 || a.Removed != 0 || a.RemovedBefore != 0 {
		t.Errorf("attempt %+v, diagnosis %+v", a, a.Diagnosis)
	}
	if k.Status != a.Status {
		t.Errorf("round status %v, attempt %v", k.Status, a.Status)
	}
}

func TestCompactStreamLeadCutInsideCharacters(t *testing.T) {
	// U+00A0 cut between two chunks, U+3000 and an LF: White_Space (R15.5), skipped; the summary
	// then a trailing LF and spaces, which the whole reply's trim removes.
	chunks := []string{"\xc2", "\xa0\xe3\x80", "\x80\n", roundSummary[:30], roundSummary[30:], "\n  ", "\n"}
	s := newStreamed(chunks...)
	res, err, _, _ := streamRound(t, lc.CompactOptions{KeepLast: 1}, s)
	c := compacted(t, res, err)
	a := c.Attempts[0]
	if c.Summary != roundSummary || !s.readToEnd() || a.Removed != lc.ReplyTrim || a.RemovedBefore != 6 || a.RemovedAfter != 4 {
		t.Errorf("summary %q, stream %+v, attempt %+v", c.Summary, s, a)
	}
	// A byte that starts no UTF-8 sequence ends the trim: it is fed, and no summary starts so.
	bad := newStreamed(" \xff", roundSummary)
	res, err, _, _ = streamRound(t, lc.CompactOptions{KeepLast: 1, Attempts: 1}, bad)
	k := keptHistory(t, res, err)
	if a := k.Attempts[0]; !a.Aborted || bad.read != 1 || a.Diagnosis.Offset != 1 || a.RemovedBefore != 1 || a.Removed != lc.ReplyTrim {
		t.Errorf("attempt %+v, diagnosis %+v", a, a.Diagnosis)
	}
}

func TestCompactStreamProseAfterTheSummaryIsJudgedWhole(t *testing.T) {
	// The stream dies at the LF after </conversation_summary> only in the sense that a complete
	// summary takes nothing more; with cleanup on, what follows is left to the whole reply's
	// check, which rejects the prose (the same verdict as Compact's).
	text := roundSummary + "\nHope this helps!"
	s := newStreamed(chunked(text, 10)...)
	res, err, _, _ := streamRound(t, lc.CompactOptions{KeepLast: 1, Attempts: 1}, s)
	k := keptHistory(t, res, err)
	whole, werr, _, _ := compactRound(t, lc.CompactOptions{KeepLast: 1, Attempts: 1}, ok(text, 30))
	w := keptHistory(t, whole, werr)
	if a := k.Attempts[0]; a.Aborted || !s.readToEnd() || !reflect.DeepEqual(a.Diagnosis, w.Attempts[0].Diagnosis) {
		t.Errorf("attempt %+v, whole %+v", a, w.Attempts[0])
	}
	// Trailing White_Space after a complete summary is removed: accepted.
	s = newStreamed(chunked(roundSummary+" \n\t", 7)...)
	res, err, _, _ = streamRound(t, lc.CompactOptions{KeepLast: 1}, s)
	if c := compacted(t, res, err); c.Attempts[0].RemovedAfter != 3 || !s.readToEnd() {
		t.Errorf("attempt %+v", c.Attempts[0])
	}
}

func TestCompactStreamAbortsAtTheByteLimit(t *testing.T) {
	// A valid summary of 152 + 15×16 = 392 bytes, in chunks of 50: with MaxReplyBytes 200 the
	// fifth chunk is the first after which more than 200 bytes were read (250), so the reply is
	// aborted there with R15.3 step 2's verdict for the bytes read.
	text := strings.Replace(roundSummary, "List the files.", "List the files."+strings.Repeat("List the files. ", 15), 1)
	if len(text) != 392 {
		t.Fatalf("the long summary has %d bytes", len(text))
	}
	s := newStreamed(chunked(text, 50)...)
	res, err, _, _ := streamRound(t, lc.CompactOptions{KeepLast: 1, Attempts: 1, MaxReplyBytes: 200}, s)
	k := keptHistory(t, res, err)
	a := k.Attempts[0]
	if !a.Aborted || s.read != 5 || !s.stopped() || a.ReplyBytes != 250 || a.Status != lc.StatusSummaryByteLimit ||
		a.Class != lc.ClassRetry || a.Diagnosis.Limit != 200 || a.Diagnosis.Actual != 250 || k.Status != lc.StatusSummaryByteLimit {
		t.Errorf("read %d, attempt %+v, diagnosis %+v", s.read, a, a.Diagnosis)
	}
	// Exactly at the limit is not over it: a 200-byte limit with a 152-byte reply in one chunk.
	s = newStreamed(roundSummary)
	res, err, _, _ = streamRound(t, lc.CompactOptions{KeepLast: 1, MaxReplyBytes: 152}, s)
	if c := compacted(t, res, err); c.Attempts[0].Aborted || !s.readToEnd() {
		t.Errorf("attempt %+v", c.Attempts[0])
	}
}

var errOutage = errors.New("outage")

func TestCompactStreamErrorsAreCallModelErrors(t *testing.T) {
	// An error of Chunks after a first chunk: the round stops ranging and never asks the usage.
	failing := func() *streamed {
		s := newStreamed(roundSummary[:20])
		s.err = errOutage
		return s
	}
	s := failing()
	res, err, _, _ := streamRound(t, lc.CompactOptions{KeepLast: 1}, s)
	if res != nil || !errors.Is(err, errOutage) || s.usageCalls != 0 || !s.returned {
		t.Errorf("raise: %v, %v, stream %+v", res, err, s)
	}
	s = failing()
	res, err, _, _ = streamRound(t, lc.CompactOptions{KeepLast: 1, OnError: lc.OnErrorKeepHistory}, s)
	k := keptHistory(t, res, err)
	if !errors.Is(k.ModelErr, errOutage) || k.Status != lc.StatusOK || k.Diagnosis != nil || len(k.Attempts) != 0 ||
		!strings.Contains(k.Reason, "attempt 1") || strings.Contains(k.Reason, "outage") {
		t.Errorf("keep history: %+v", k)
	}

	// An error of Usage, after a reply read to the end.
	s = newStreamed(roundSummary)
	s.usageErr = errOutage
	res, err, _, _ = streamRound(t, lc.CompactOptions{KeepLast: 1}, s)
	if res != nil || !errors.Is(err, errOutage) || s.usageCalls != 1 || !s.exhausted {
		t.Errorf("usage raise: %v, %v", res, err)
	}
	s = newStreamed(roundSummary)
	s.usageErr = errOutage
	res, err, _, _ = streamRound(t, lc.CompactOptions{KeepLast: 1, OnError: lc.OnErrorKeepHistory}, s)
	if k := keptHistory(t, res, err); !errors.Is(k.ModelErr, errOutage) {
		t.Errorf("usage keep history: %+v", k)
	}

	// An error of callModel itself, at the second attempt: the first attempt is kept.
	in := roundInput(t)
	calls := 0
	model := func(_ context.Context, req lc.SummaryRequest) (lc.SummaryReplyStream, error) {
		calls++
		if calls == 2 {
			return lc.SummaryReplyStream{}, errOutage
		}
		return newStreamed(roundRejected).reply(), nil
	}
	res, err = lc.CompactStream(context.Background(), in, model, lc.CompactOptions{KeepLast: 1, OnError: lc.OnErrorKeepHistory})
	if k := keptHistory(t, res, err); !errors.Is(k.ModelErr, errOutage) || len(k.Attempts) != 1 || !k.Attempts[0].Aborted {
		t.Errorf("callModel keep history: %+v", k)
	}
}

func TestCompactStreamHostErrors(t *testing.T) {
	in := roundInput(t)
	ctx := context.Background()
	if _, err := lc.CompactStream(ctx, in, nil, lc.CompactOptions{}); !errors.Is(err, lc.ErrInvalidOption) {
		t.Errorf("nil callModel: %v", err)
	}
	noUsage := func(context.Context, lc.SummaryRequest) (lc.SummaryReplyStream, error) {
		return lc.SummaryReplyStream{Chunks: newStreamed(roundSummary).reply().Chunks}, nil
	}
	if _, err := lc.CompactStream(ctx, in, noUsage, lc.CompactOptions{}); !errors.Is(err, lc.ErrInvalidReply) {
		t.Errorf("no Usage: %v", err)
	}
	s := newStreamed(roundSummary)
	s.usage.Stop = lc.Stop(99)
	badStop := func(context.Context, lc.SummaryRequest) (lc.SummaryReplyStream, error) { return s.reply(), nil }
	if _, err := lc.CompactStream(ctx, in, badStop, lc.CompactOptions{}); !errors.Is(err, lc.ErrInvalidReply) {
		t.Errorf("bad Stop: %v", err)
	}
}

func TestCompactStreamCancelledWhileReading(t *testing.T) {
	// ctx cancelled after the first of three chunks arrived: the round stops reading at the next
	// chunk (Chunks returns, so the provider's stream is closed), never asks for Usage, and
	// returns ctx's error.
	in := roundInput(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := newStreamed(chunked(roundSummary, len(roundSummary)/3+1)...)
	inner := s.reply()
	cancelling := lc.SummaryReplyStream{
		Chunks: func(yield func(string, error) bool) {
			inner.Chunks(func(chunk string, err error) bool {
				if s.read == 2 {
					cancel()
				}
				return yield(chunk, err)
			})
		},
		Usage: inner.Usage,
	}
	model := func(context.Context, lc.SummaryRequest) (lc.SummaryReplyStream, error) { return cancelling, nil }
	res, err := lc.CompactStream(ctx, in, model, lc.CompactOptions{KeepLast: 1})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("got %v, %v", res, err)
	}
	if len(s.chunks) != 3 || s.read != 2 || !s.stopped() {
		t.Errorf("stream: %d chunks, read %d, %+v", len(s.chunks), s.read, s)
	}
}

func TestCompactStreamStructuredGathersToTheEnd(t *testing.T) {
	// With Structured the reply is a JSON object, which an XML stream would reject at its "{":
	// the chunks are gathered to the end and read whole.
	texts := lc.SectionTexts{Goal: "List the files.", State: "ls found a.go & b.go."}
	text := sectionsJSON(t, texts)
	s := newStreamed(chunked(text, 3)...)
	res, err, _, _ := streamRound(t, lc.CompactOptions{KeepLast: 1, Structured: true}, s)
	c := compacted(t, res, err)
	if !s.readToEnd() || c.Attempts[0].Aborted || c.Attempts[0].ReplyBytes != len(text) {
		t.Errorf("stream %+v, attempt %+v", s, c.Attempts[0])
	}
	// The same summary as Compact's for the reply returned whole.
	whole, werr, _, _ := compactRound(t, lc.CompactOptions{KeepLast: 1, Structured: true}, ok(text, 30))
	if w := compacted(t, whole, werr); c.Summary != w.Summary || !strings.Contains(c.Summary, "a.go &amp; b.go") {
		t.Errorf("summary %q, whole %q", c.Summary, w.Summary)
	}
}

// TestCompactStreamMatchesTheWholeReply cuts every summary of the vectors (and of these tests),
// bare and wrapped as models wrap them, at every chunk size from 1 to 64: a reply CompactStream
// reads to the end has exactly Compact's attempt for the same reply returned whole, and one it
// aborts is a reply Compact rejects (never an accepted one), with the byte limit's verdict when
// that is what aborted it, after reading whole chunks only.
func TestCompactStreamMatchesTheWholeReply(t *testing.T) {
	docs := []string{roundSummary, roundRejected}
	for _, r := range loadRows(t, filepath.Join(vectorDir, "summary_xml.jsonl")) {
		docs = append(docs, string(r.doc(t, "xml")))
	}
	wraps := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return " \n```xml\n" + s + "\n```\n" },
		func(s string) string { return "\u3000" + s + "\nDone." },
		func(s string) string { return "~~~\n\n" + s },
	}
	optionSets := []lc.CompactOptions{
		{KeepLast: 1, Attempts: 1},
		{KeepLast: 1, Attempts: 1, NoTrim: true},
		{KeepLast: 1, Attempts: 1, NoUnfence: true},
		{KeepLast: 1, Attempts: 1, NoTrim: true, NoUnfence: true},
		{KeepLast: 1, Attempts: 1, MaxReplyBytes: 300}, // a limit some replies pass
	}
	in := roundInput(t)
	ctx := context.Background()
	aborted, accepted := 0, 0
	for di, doc := range docs {
		for wi, wrap := range wraps {
			text := wrap(doc)
			for oi, opts := range optionSets {
				whole, err := lc.Compact(ctx, in, func(context.Context, lc.SummaryRequest) (lc.SummaryReply, error) {
					return lc.SummaryReply{Text: text, OutputTokens: 30, Stop: lc.StopEnd}, nil
				}, opts)
				if err != nil {
					t.Fatal(err)
				}
				w := attemptsOf(whole)[0]
				if w.Status == lc.StatusOK {
					accepted++
				}
				for size := 1; size <= 64; size++ {
					s := newStreamed(chunked(text, size)...)
					got, err := lc.CompactStream(ctx, in, func(context.Context, lc.SummaryRequest) (lc.SummaryReplyStream, error) {
						return s.reply(), nil
					}, opts)
					if err != nil {
						t.Fatal(err)
					}
					a := attemptsOf(got)[0]
					where := func() string {
						return "doc " + strconv.Itoa(di) + " wrap " + strconv.Itoa(wi) + " options " + strconv.Itoa(oi) + " size " + strconv.Itoa(size)
					}
					// The round's limit: 16 bytes per summary token (64) unless set.
					limit := 1024
					if opts.MaxReplyBytes != 0 {
						limit = int(opts.MaxReplyBytes)
					}
					if !a.Aborted {
						a.Request, w.Request = lc.SummaryRequest{}, lc.SummaryRequest{}
						if !reflect.DeepEqual(a, w) || !s.readToEnd() || w.Status == lc.StatusSummaryByteLimit {
							t.Fatalf("%s: streamed %+v\nwhole %+v", where(), a, w)
						}
						if reflect.TypeOf(got) != reflect.TypeOf(whole) {
							t.Fatalf("%s: %T vs %T", where(), got, whole)
						}
						continue
					}
					aborted++
					// A reply over the limit stops at the chunk that passes it, unless it died
					// before: R15.3 step 2 first.
					if a.Status == lc.StatusSummaryByteLimit && a.ReplyBytes != min(len(text), (limit/size+1)*size) ||
						a.Status != lc.StatusSummaryByteLimit && w.Status == lc.StatusSummaryByteLimit && a.ReplyBytes > limit {
						t.Fatalf("%s: the byte limit: aborted %+v (read %d chunks)", where(), a, s.read)
					}
					if w.Status == lc.StatusOK || !s.stopped() || a.ReplyBytes != min(len(text), s.read*size) ||
						a.Status == lc.StatusSummaryByteLimit && w.Status != lc.StatusSummaryByteLimit ||
						a.Diagnosis == nil || a.Diagnosis.Location != "summary" && a.Status != lc.StatusSummaryByteLimit {
						t.Fatalf("%s: aborted %+v (read %d chunks), whole %+v", where(), a, s.read, w)
					}
				}
			}
		}
	}
	// Both sides are exercised: replies accepted whole, and replies aborted early.
	if aborted == 0 || accepted == 0 {
		t.Errorf("%d aborted streams, %d accepted replies", aborted, accepted)
	}
}

func attemptsOf(res lc.CompactResult) []lc.Attempt {
	switch r := res.(type) {
	case *lc.Compacted:
		return r.Attempts
	case *lc.KeepHistory:
		return r.Attempts
	}
	return nil
}
