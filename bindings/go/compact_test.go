package loopcompact_test

// Compact (SPEC R15.12) against a scripted fake model: each class of verdict, the truncation
// escalation, cleanup, CallModel's errors, a reply that is not one, running out of attempts,
// nothing to summarise, cancellation, and that no two requests of a round are equal. Expected
// requests, heads and replacements are written from the SPEC (round_test.go's fixtures).

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// step is one scripted answer of the fake model.
type step struct {
	reply lc.SummaryReply
	err   error
}

// script is a fake model: it records every request and answers with its steps in order.
type script struct {
	t        *testing.T
	steps    []step
	requests []lc.SummaryRequest
}

func (s *script) call(_ context.Context, req lc.SummaryRequest) (lc.SummaryReply, error) {
	s.requests = append(s.requests, req)
	if len(s.requests) > len(s.steps) {
		s.t.Fatalf("the model was called %d times; the script has %d answers", len(s.requests), len(s.steps))
	}
	st := s.steps[len(s.requests)-1]
	return st.reply, st.err
}

func ok(text string, tokens uint64) step {
	return step{reply: lc.SummaryReply{Text: text, OutputTokens: tokens, Stop: lc.StopEnd}}
}

// compactRound runs Compact on the round input with the script, collecting OnAttempt's calls.
func compactRound(t *testing.T, opts lc.CompactOptions, steps ...step) (lc.CompactResult, error, *script, []lc.Attempt) {
	t.Helper()
	in := roundInput(t)
	s := &script{t: t, steps: steps}
	var seen []lc.Attempt
	opts.OnAttempt = func(a lc.Attempt) { seen = append(seen, a) }
	res, err := lc.Compact(context.Background(), in, s.call, opts)
	return res, err, s, seen
}

// distinct fails when two requests of a round are equal (R15.12 step 4) in what the provider
// sees: the system prompt, the turns and the token budget (Attempt is not sent).
func distinct(t *testing.T, requests []lc.SummaryRequest) {
	t.Helper()
	sent := func(r lc.SummaryRequest) lc.SummaryRequest { r.Attempt = 0; return r }
	for i := range requests {
		for j := i + 1; j < len(requests); j++ {
			if reflect.DeepEqual(sent(requests[i]), sent(requests[j])) {
				t.Errorf("requests %d and %d are equal", i+1, j+1)
			}
		}
	}
}

func compacted(t *testing.T, res lc.CompactResult, err error) *lc.Compacted {
	t.Helper()
	c, isCompacted := res.(*lc.Compacted)
	if err != nil || !isCompacted {
		t.Fatalf("want *Compacted, got %#v, %v", res, err)
	}
	return c
}

func keptHistory(t *testing.T, res lc.CompactResult, err error) *lc.KeepHistory {
	t.Helper()
	k, isKeep := res.(*lc.KeepHistory)
	if err != nil || !isKeep {
		t.Fatalf("want *KeepHistory, got %#v, %v", res, err)
	}
	return k
}

// checkRecords checks that OnAttempt saw exactly the result's attempts, and the diagnoses.
func checkRecords(t *testing.T, attempts, seen []lc.Attempt, diagnoses []*lc.Error, requests []lc.SummaryRequest) {
	t.Helper()
	if !reflect.DeepEqual(attempts, seen) {
		t.Errorf("OnAttempt saw %d attempts, the result has %d, or they differ", len(seen), len(attempts))
	}
	if len(diagnoses) != len(attempts) || len(requests) != len(attempts) {
		t.Fatalf("%d attempts, %d diagnoses, %d requests", len(attempts), len(diagnoses), len(requests))
	}
	for i, a := range attempts {
		if a.Number != i+1 || diagnoses[i] != a.Diagnosis || !reflect.DeepEqual(a.Request, requests[i]) {
			t.Errorf("attempt %d: number %d, its request or its diagnosis differ", i+1, a.Number)
		}
		if (a.Status == lc.StatusOK) != (a.Diagnosis == nil) {
			t.Errorf("attempt %d: status %v with diagnosis %v", i+1, a.Status, a.Diagnosis)
		}
	}
}

func TestCompactRetryThenAccepted(t *testing.T) {
	fenced := "```xml\n" + roundSummary + "\n```\n"
	res, err, s, seen := compactRound(t, lc.CompactOptions{KeepLast: 1},
		ok(roundRejected, 30), ok(fenced, 41))
	c := compacted(t, res, err)
	m := roundMessages()

	// The cut, the summary and the replacement (R15.9, written by hand in round_test.go).
	wantReplacement := `[` + m0System + `,` + summaryMessage(roundSummary, `{"type":"text","text":"now ship it"}`) + `]`
	if c.Cut != 5 || c.Summary != roundSummary || string(c.Replacement) != wantReplacement {
		t.Errorf("cut %d, summary %q, replacement\n%s\nwant\n%s", c.Cut, c.Summary, c.Replacement, wantReplacement)
	}
	in := roundInput(t)
	if err := in.VerifyReplacement(c.Cut, c.Replacement); err != nil {
		t.Errorf("the replacement does not verify: %v", err)
	}

	// The requests: the instructions, the head of cut 5, then the withheld reply and the retry.
	if len(s.requests) != 2 {
		t.Fatalf("%d requests", len(s.requests))
	}
	head := roundDoc(m[:5]...)
	first, second := s.requests[0], s.requests[1]
	if first.System != lc.SummaryInstructions() || !strings.Contains(first.System, "<conversation_summary>") {
		t.Errorf("system prompt %q", first.System)
	}
	if !reflect.DeepEqual(first.Messages, []lc.ChatMessage{{Role: "user", Content: head}}) ||
		first.MaxTokens != 64 || first.Attempt != 1 {
		t.Errorf("first request %+v", first)
	}
	if len(second.Messages) != 3 || second.Messages[0] != first.Messages[0] ||
		second.Messages[1] != (lc.ChatMessage{Role: "assistant", Content: "[previous summary withheld: it was rejected]"}) ||
		second.Messages[2].Role != "user" || second.MaxTokens != 64 || second.Attempt != 2 {
		t.Errorf("second request %+v", second)
	}
	// The retry message of the rejection: X4.18 at line 3, column 1, the missing <constraints>.
	for _, part := range []string{"line 3, column 1", "<constraints>", "X4.18"} {
		if !strings.Contains(second.Messages[2].Content, part) {
			t.Errorf("retry turn %q lacks %q", second.Messages[2].Content, part)
		}
	}
	distinct(t, s.requests)

	// The attempts: the rejection with its diagnosis, then the fenced reply with its cleanup.
	checkRecords(t, c.Attempts, seen, c.Diagnoses, s.requests)
	a1, a2 := c.Attempts[0], c.Attempts[1]
	if a1.Status != lc.StatusSummaryXMLStructure || a1.Class != lc.ClassRetry || a1.Stop != lc.StopEnd ||
		a1.ReplyBytes != len(roundRejected) || a1.Diagnosis.Line != 3 || a1.Diagnosis.Column != 1 || a1.Removed != 0 {
		t.Errorf("attempt 1: %+v", a1)
	}
	if second.Messages[2].Content != a1.Diagnosis.RetryMessage() {
		t.Errorf("the retry turn is not the first attempt's retry message")
	}
	// R15.5: "```xml\n" (7 bytes) before; the final newline and "\n```" (5 bytes) after.
	if a2.Status != lc.StatusOK || a2.Class != lc.ClassOK || a2.ReplyBytes != len(fenced) ||
		a2.Removed != lc.ReplyTrim|lc.ReplyUnfence || a2.RemovedBefore != 7 || a2.RemovedAfter != 5 {
		t.Errorf("attempt 2: %+v", a2)
	}
}

func TestCompactReshowsTheRejectedReplyWhenAsked(t *testing.T) {
	res, err, s, _ := compactRound(t, lc.CompactOptions{KeepLast: 1, ReshowRejected: true},
		ok(roundRejected, 30), ok(" "+roundSummary, 41))
	compacted(t, res, err)
	if got := s.requests[1].Messages[1]; got != (lc.ChatMessage{Role: "assistant", Content: roundRejected}) {
		t.Errorf("the assistant turn is %+v, want the rejected reply", got)
	}
}

// R15.12 step 4: a truncated reply doubles MaxTokens up to max_summary_tokens (64), then shrinks
// the head to three quarters of the last one sent (the tool result stubbed), then keeps the head
// when nothing smaller fits.
func TestCompactTruncationEscalates(t *testing.T) {
	truncated := func(tokens uint64) step {
		return step{reply: lc.SummaryReply{Text: roundSummary[:60], OutputTokens: tokens, Stop: lc.StopLength}}
	}
	res, err, s, seen := compactRound(t, lc.CompactOptions{KeepLast: 1, Attempts: 6, MaxTokens: 16},
		truncated(16), truncated(32), truncated(64), truncated(64), truncated(64), ok(roundSummary, 50))
	c := compacted(t, res, err)
	checkRecords(t, c.Attempts, seen, c.Diagnoses, s.requests)
	distinct(t, s.requests)

	m := roundMessages()
	full := roundDoc(m[:5]...)
	stubbed := roundDoc(m[0], m[1], m[2], toolMessage(stubText), m[4])
	// The stubbed head fits under 3/4 of the full one; nothing fits under 3/4 of the stubbed one
	// (only the tool message can be stubbed, F7.3).
	if len(stubbed) > len(full)*3/4 {
		t.Fatalf("fixture: the stubbed head (%d) is above 3/4 of the full one (%d)", len(stubbed), len(full))
	}
	wantTokens := []uint64{16, 32, 64, 64, 64, 64}
	// Attempt 3 asked for max_summary_tokens already: its truncation shrinks the head; those of
	// attempts 4 and 5 find nothing smaller and keep it.
	wantHeads := []string{full, full, full, stubbed, stubbed, stubbed}
	for i, r := range s.requests {
		if r.MaxTokens != wantTokens[i] || r.Messages[0].Content != wantHeads[i] || len(r.Messages) != 1+2*i {
			t.Errorf("request %d: max_tokens %d (want %d), head of %d bytes (want %d), %d turns",
				i+1, r.MaxTokens, wantTokens[i], len(r.Messages[0].Content), len(wantHeads[i]), len(r.Messages))
		}
	}
	// R15.4: each truncation's diagnosis has the budget and the reported tokens.
	for i, a := range c.Attempts[:5] {
		if a.Status != lc.StatusReplyTruncated || a.Class != lc.ClassRetry || a.Stop != lc.StopLength ||
			a.Diagnosis.Limit != 64 || a.Diagnosis.Actual != wantTokens[i] {
			t.Errorf("attempt %d: %+v", i+1, a)
		}
		if !strings.Contains(s.requests[i+1].Messages[2+2*i].Content, "cut off") {
			t.Errorf("request %d: the retry turn does not ask for a shorter summary", i+2)
		}
	}
}

func TestCompactStopsAtOnce(t *testing.T) {
	for _, c := range []struct {
		name   string
		opts   lc.CompactOptions
		reply  step
		status lc.Status
		class  lc.Class
		reason string
	}{
		// DISCARD: bytes that are not UTF-8 (J5.3), and no usage reported.
		{"not UTF-8", lc.CompactOptions{}, ok("\xff"+roundSummary, 40), lc.StatusSummaryWire, lc.ClassDiscard, "can never be used"},
		{"lone surrogate", lc.CompactOptions{}, ok(strings.Replace(roundSummary, "List", "\xed\xb0\x80", 1), 40),
			lc.StatusSummaryWire, lc.ClassDiscard, "can never be used"},
		{"usage 0", lc.CompactOptions{}, ok(roundSummary, 0), lc.StatusSummaryTokenUsage, lc.ClassDiscard, "turn usage reporting on"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err, s, seen := compactRound(t, c.opts, c.reply, ok(roundSummary, 40))
			k := keptHistory(t, res, err)
			if len(s.requests) != 1 || k.Status != c.status || k.Diagnosis == nil || k.Diagnosis.Status != c.status ||
				k.Diagnosis.Class() != c.class || !strings.Contains(k.Reason, c.reason) {
				t.Errorf("%d calls, %+v", len(s.requests), k)
			}
			checkRecords(t, k.Attempts, seen, k.Diagnoses, s.requests)
			if k.Attempts[0].Class != c.class {
				t.Errorf("attempt class %v", k.Attempts[0].Class)
			}
			// Nothing of the reply in the reason (no input bytes).
			if strings.Contains(k.Reason, "List") || strings.Contains(k.Reason, "\xff") {
				t.Errorf("reason %q", k.Reason)
			}
		})
	}
}

// R15.12 step 1 with R15.2: a byte limit below the 114-byte smallest summary ends the round with
// keep history before the model is called; 114 calls it.
func TestCompactUnreachableReplyLimitSendsNoRequest(t *testing.T) {
	for _, limit := range []uint64{1, 100, lc.SmallestSummaryLen - 1} {
		res, err, s, _ := compactRound(t, lc.CompactOptions{MaxReplyBytes: limit}, ok(roundSummary, 40))
		k := keptHistory(t, res, err)
		if len(s.requests) != 0 || k.Status != lc.StatusReplyByteLimitUnreachable || k.Diagnosis == nil ||
			k.Diagnosis.Class() != lc.ClassHost || len(k.Attempts) != 0 || len(k.Diagnoses) != 0 ||
			!strings.Contains(k.Reason, "MaxReplyBytes") {
			t.Errorf("limit %d: %d calls, %+v", limit, len(s.requests), k)
		}
	}
	res, err, s, _ := compactRound(t, lc.CompactOptions{MaxReplyBytes: lc.SmallestSummaryLen, Attempts: 1}, ok(roundSummary, 40))
	k := keptHistory(t, res, err)
	if len(s.requests) != 1 || k.Status != lc.StatusSummaryByteLimit {
		t.Errorf("limit 114: %d calls, %+v", len(s.requests), k)
	}
}

func TestCompactRunsOutOfAttempts(t *testing.T) {
	res, err, s, seen := compactRound(t, lc.CompactOptions{},
		ok(roundRejected, 30), ok(roundSummary, 65), ok("<conversation_summary>", 10))
	k := keptHistory(t, res, err)
	checkRecords(t, k.Attempts, seen, k.Diagnoses, s.requests)
	distinct(t, s.requests)
	want := []lc.Status{lc.StatusSummaryXMLStructure, lc.StatusSummaryTokenLimit, lc.StatusSummaryXMLSyntax}
	for i, a := range k.Attempts {
		if a.Status != want[i] || a.Class != lc.ClassRetry {
			t.Errorf("attempt %d: %v (%v), want %v", i+1, a.Status, a.Class, want[i])
		}
	}
	if len(s.requests) != 3 || k.Status != lc.StatusSummaryXMLSyntax || k.Diagnosis != k.Attempts[2].Diagnosis ||
		!strings.Contains(k.Reason, "3 attempts") {
		t.Errorf("%d calls, %+v", len(s.requests), k)
	}
	// KeepLast 0: the cut is the whole transcript, the head all six messages.
	if s.requests[0].Messages[0].Content != roundDoc(roundMessages()...) {
		t.Errorf("the head of cut 6 is %s", s.requests[0].Messages[0].Content)
	}
}

func TestCompactModelErrors(t *testing.T) {
	boom := errors.New("SECRET boom")
	// Returned as CallModel returned it.
	res, err, s, _ := compactRound(t, lc.CompactOptions{}, step{err: boom})
	if res != nil || err != boom || len(s.requests) != 1 {
		t.Errorf("got %#v, %v", res, err)
	}
	// Kept history instead: the reason names the type, never the text.
	res, err, s, seen := compactRound(t, lc.CompactOptions{OnError: lc.OnErrorKeepHistory},
		ok(roundRejected, 30), step{err: boom})
	k := keptHistory(t, res, err)
	if k.ModelErr != boom || k.Diagnosis != nil || k.Status != lc.StatusOK ||
		!strings.Contains(k.Reason, "*errors.errorString") || strings.Contains(k.Reason, "SECRET") {
		t.Errorf("%+v", k)
	}
	checkRecords(t, k.Attempts, seen, k.Diagnoses, s.requests[:1])
	if len(s.requests) != 2 {
		t.Errorf("%d calls", len(s.requests))
	}
}

// What is not a round: Go's types make every returned value a SummaryReply; a Stop outside the
// constants is the one reply that is not one. Options that cannot run are the host's errors.
func TestCompactHostErrors(t *testing.T) {
	res, err, s, _ := compactRound(t, lc.CompactOptions{}, step{reply: lc.SummaryReply{Text: roundSummary, OutputTokens: 40, Stop: 7}})
	if res != nil || !errors.Is(err, lc.ErrInvalidReply) || len(s.requests) != 1 {
		t.Errorf("stop 7: %#v, %v", res, err)
	}
	in := roundInput(t)
	never := func(context.Context, lc.SummaryRequest) (lc.SummaryReply, error) {
		t.Fatal("the model was called")
		return lc.SummaryReply{}, nil
	}
	for name, opts := range map[string]lc.CompactOptions{
		"attempts -1":      {Attempts: -1},
		"on error unknown": {OnError: "retry"},
		"max tokens 65":    {MaxTokens: 65},
	} {
		if res, err := lc.Compact(context.Background(), in, never, opts); res != nil || !errors.Is(err, lc.ErrInvalidOption) {
			t.Errorf("%s: %#v, %v", name, res, err)
		}
	}
	if _, err := lc.Compact(context.Background(), in, nil, lc.CompactOptions{}); !errors.Is(err, lc.ErrInvalidOption) {
		t.Errorf("nil callModel: %v", err)
	}
	closed := mustParse(t, []byte(roundDoc(roundMessages()...)))
	closed.Close()
	if _, err := lc.Compact(context.Background(), closed, never, lc.CompactOptions{}); !errors.Is(err, lc.ErrClosed) {
		t.Errorf("closed input: %v", err)
	}
}

// R15.12 step 1: the model is not called when there is nothing to summarise, the pairing fails or
// the head does not fit.
func TestCompactKeepsHistoryBeforeAnyCall(t *testing.T) {
	never := func(context.Context, lc.SummaryRequest) (lc.SummaryReply, error) {
		t.Fatal("the model was called")
		return lc.SummaryReply{}, nil
	}
	in := roundInput(t)
	for _, c := range []struct {
		opts lc.CompactOptions
		want lc.Status
	}{
		{lc.CompactOptions{KeepLast: 6}, lc.StatusReplacementEmptyHead}, // cut 0
		{lc.CompactOptions{KeepLast: 5}, lc.StatusReplacementEmptyHead}, // cut 1: the system message only
		{lc.CompactOptions{KeepLast: 9}, lc.StatusReplacementEmptyHead},
		{lc.CompactOptions{MaxInputBytes: 100}, lc.StatusInputTooLarge},
	} {
		res, err := lc.Compact(context.Background(), in, never, c.opts)
		k := keptHistory(t, res, err)
		if k.Status != c.want || k.Diagnosis == nil || len(k.Attempts) != 0 || len(k.Diagnoses) != 0 || k.Reason == "" {
			t.Errorf("%+v: %+v", c.opts, k)
		}
	}
	// S14.3: c1 is never answered.
	unpaired := mustParse(t, wireWith(user("go"), call("c1"), assistantText("done")))
	res, err := lc.Compact(context.Background(), unpaired, never, lc.CompactOptions{})
	k := keptHistory(t, res, err)
	if k.Status != lc.StatusPairingUnansweredCall || k.Diagnosis.Location != "transcript[1].blocks[0]" || len(k.Attempts) != 0 {
		t.Errorf("unpaired: %+v (%v)", k, k.Diagnosis)
	}
}

type ctxKey struct{}

// ctx reaches CallModel, and a cancelled ctx stops the round before the next attempt.
func TestCompactContext(t *testing.T) {
	in := roundInput(t)
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "round 1"))
	defer cancel()
	calls := 0
	res, err := lc.Compact(ctx, in, func(ctx context.Context, _ lc.SummaryRequest) (lc.SummaryReply, error) {
		calls++
		if ctx.Value(ctxKey{}) != "round 1" {
			t.Error("CallModel did not get Compact's ctx")
		}
		cancel()
		return lc.SummaryReply{Text: roundRejected, OutputTokens: 30, Stop: lc.StopEnd}, nil
	}, lc.CompactOptions{})
	if res != nil || !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("%d calls, %#v, %v", calls, res, err)
	}
	if _, err := lc.Compact(ctx, in, func(context.Context, lc.SummaryRequest) (lc.SummaryReply, error) {
		t.Error("called with a cancelled ctx")
		return lc.SummaryReply{}, nil
	}, lc.CompactOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the first attempt: %v", err)
	}
}

// The defaults of CompactOptions: MaxReplyBytes 16 × max_summary_tokens (1024 here), cleanup on.
func TestCompactDefaults(t *testing.T) {
	long := strings.Replace(roundSummary, "List the files.", "List the files."+strings.Repeat(" ", 1024-len(roundSummary)), 1)
	if len(long) != 1024 {
		t.Fatalf("fixture: %d bytes", len(long))
	}
	res, err, _, _ := compactRound(t, lc.CompactOptions{}, ok(long, 40))
	compacted(t, res, err)
	res, err, _, _ = compactRound(t, lc.CompactOptions{Attempts: 1}, ok(long+"x", 40))
	if k := keptHistory(t, res, err); k.Status != lc.StatusSummaryByteLimit || k.Diagnosis.Limit != 1024 {
		t.Errorf("1025 bytes: %+v", k)
	}
	res, err, _, _ = compactRound(t, lc.CompactOptions{NoTrim: true, NoUnfence: true, Attempts: 1}, ok("```\n"+roundSummary+"\n```", 40))
	if k := keptHistory(t, res, err); k.Attempts[0].Removed != 0 {
		t.Errorf("cleanup off: %+v", k.Attempts[0])
	}
}
