package loopcompact_test

// Transcript safety (SPEC §14) through the Go API: pairing with its diagnosis, safe cuts, the cut
// check and the loop guard, each against cases worked out by hand from S14.2–S14.6.

import (
	"errors"
	"strings"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// wireWith is testWire's identity and budget around the given transcript messages.
func wireWith(messages ...string) []byte {
	return []byte(`{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},` +
		`"model":{"provider":"provider","model":"model"},` +
		`"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",` +
		`"transcript":[` + strings.Join(messages, ",") + `],"max_summary_tokens":32}`)
}

func user(text string) string {
	return `{"role":"user","blocks":[{"type":"text","text":"` + text + `"}]}`
}

func assistantText(text string) string {
	return `{"role":"assistant","blocks":[{"type":"text","text":"` + text + `"}]}`
}

func call(ids ...string) string {
	var blocks []string
	for _, id := range ids {
		blocks = append(blocks, `{"type":"tool_use","id":"`+id+`","name":"ls","input":{}}`)
	}
	return `{"role":"assistant","blocks":[` + strings.Join(blocks, ",") + `]}`
}

func toolResult(id string) string {
	return `{"role":"tool","blocks":[{"type":"text","text":"out"}],"tool_use_id":"` + id + `","is_error":false}`
}

func userResult(id string, isError bool) string {
	e := "false"
	if isError {
		e = "true"
	}
	return `{"role":"user","blocks":[{"type":"tool_result","tool_use_id":"` + id + `","content":[],"is_error":` + e + `}]}`
}

// nthIndex is the index of the n-th (1-based) occurrence of sub in s, -1 when there is none.
func nthIndex(s, sub string, n int) int {
	at := -1
	for ; n > 0; n-- {
		i := strings.Index(s[at+1:], sub)
		if i < 0 {
			return -1
		}
		at += 1 + i
	}
	return at
}

func mustParse(t *testing.T, wire []byte) *lc.Input {
	t.Helper()
	in, err := lc.ParseInput(wire)
	if err != nil {
		t.Fatalf("ParseInput: %v", err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}

func TestCheckPairing(t *testing.T) {
	ok := [][]string{
		{user("hi"), call("c1"), toolResult("c1"), assistantText("done")},
		{user("hi"), call("c1", "c2"), userResult("c2", true), toolResult("c1"), assistantText("done")},
		{user("hi"), assistantText("no tools")},
		{user("hi"), call(""), toolResult("")}, // "" is an id like any other (S14.1)
	}
	for i, msgs := range ok {
		if err := mustParse(t, wireWith(msgs...)).CheckPairing(); err != nil {
			t.Errorf("case %d: %v", i, err)
		}
	}
	// The violation and where (S14.3): location, and the offset of the id's string body, found
	// here as the byte after the quote of the occurrence named.
	cases := []struct {
		name     string
		msgs     []string
		status   lc.Status
		location string
		idAt     func(wire string) int
	}{
		{"unanswered", []string{user("hi"), call("c-un"), assistantText("next")},
			lc.StatusPairingUnansweredCall, "transcript[1].blocks[0]",
			func(w string) int { return strings.Index(w, `"c-un"`) + 1 }},
		{"orphan tool message", []string{user("hi"), toolResult("c-or")},
			lc.StatusPairingOrphanResult, "transcript[1].tool_use_id",
			func(w string) int { return strings.Index(w, `"c-or"`) + 1 }},
		{"orphan after the next assistant message", []string{user("hi"), call("c-late"), assistantText("x"), userResult("c-late", false)},
			lc.StatusPairingUnansweredCall, "transcript[1].blocks[0]",
			func(w string) int { return strings.Index(w, `"c-late"`) + 1 }},
		{"duplicate id", []string{call("c-dup"), toolResult("c-dup"), call("c-dup"), toolResult("c-dup")},
			lc.StatusPairingDuplicateID, "transcript[2].blocks[0]",
			func(w string) int { return nthIndex(w, `"c-dup"`, 3) + 1 }}, // call, result, call
		{"duplicate result", []string{call("c-two"), toolResult("c-two"), userResult("c-two", false)},
			lc.StatusPairingDuplicateResult, "transcript[2].blocks[0]",
			func(w string) int { return strings.LastIndex(w, `"c-two"`) + 1 }},
	}
	for _, c := range cases {
		wire := wireWith(c.msgs...)
		in := mustParse(t, wire)
		err := in.CheckPairing()
		var e *lc.Error
		if !errors.As(err, &e) || e.Status != c.status {
			t.Errorf("%s: %v, want %s", c.name, err, c.status)
			continue
		}
		if e.Location != c.location || e.Rule != "S14.3" || e.Offset != uint64(c.idAt(string(wire))) ||
			e.Line != 1 || e.Column != e.Offset+1 || !errors.Is(err, lc.ClassHost) {
			t.Errorf("%s: %+v, want location %s, offset %d", c.name, e, c.location, c.idAt(string(wire)))
		}
		if strings.Contains(err.Error(), "c-") {
			t.Errorf("%s: the error shows the id: %v", c.name, err)
		}
		// The cut functions run the pairing check first and report it the same way.
		if _, err := in.SafeCut(0); !errors.As(err, &e) || e.Status != c.status || e.Location != c.location {
			t.Errorf("%s: SafeCut: %v", c.name, err)
		}
		if err := in.CheckCut(0); !errors.As(err, &e) || e.Status != c.status || e.Location != c.location {
			t.Errorf("%s: CheckCut: %v", c.name, err)
		}
	}
}

func TestCuts(t *testing.T) {
	// Messages 0 user, 1 call c1, 2 its result, 3 assistant. A cut c keeps [c, 4): c = 2 splits
	// the pair (call before, result at or after); 0, 1, 3, 4 are safe.
	in := mustParse(t, wireWith(user("hi"), call("c1"), toolResult("c1"), assistantText("done")))
	for keep, want := range map[uint64]uint64{0: 4, 1: 3, 2: 1, 3: 1, 4: 0, 5: 0, 1 << 63: 0} {
		if got, err := in.SafeCut(keep); err != nil || got != want {
			t.Errorf("SafeCut(%d) = %d, %v; want %d", keep, got, err, want)
		}
	}
	for cut, want := range map[uint64]lc.Status{0: lc.StatusOK, 1: lc.StatusOK, 2: lc.StatusCutUnsafe,
		3: lc.StatusOK, 4: lc.StatusOK, 5: lc.StatusInvalidArgument, 1<<64 - 1: lc.StatusInvalidArgument} {
		err := in.CheckCut(cut)
		if (want == lc.StatusOK) != (err == nil) || (err != nil && !errors.Is(err, want)) {
			t.Errorf("CheckCut(%d) = %v, want %s", cut, err, want)
		}
	}
	// Two calls answered out of order, then a second pair: only 0, 1, 4, 6 and 7 are safe.
	in = mustParse(t, wireWith(user("hi"), call("a", "b"), userResult("b", false), toolResult("a"),
		call("c"), toolResult("c"), assistantText("done")))
	for keep, want := range map[uint64]uint64{0: 7, 1: 6, 2: 4, 3: 4, 4: 1, 6: 1, 7: 0} {
		if got, err := in.SafeCut(keep); err != nil || got != want {
			t.Errorf("SafeCut(%d) = %d, %v; want %d", keep, got, err, want)
		}
	}
	in.Close()
	if _, err := in.SafeCut(0); !errors.Is(err, lc.ErrClosed) {
		t.Errorf("SafeCut after Close: %v", err)
	}
	if err := in.CheckCut(0); !errors.Is(err, lc.ErrClosed) {
		t.Errorf("CheckCut after Close: %v", err)
	}
	if err := in.CheckPairing(); !errors.Is(err, lc.ErrClosed) {
		t.Errorf("CheckPairing after Close: %v", err)
	}
}

func TestLoopGuard(t *testing.T) {
	// S14.5: occupancy after the replacement against RearmBelow (6000 bp of 10000 tokens).
	for _, c := range []struct {
		post, limit uint64
		want        lc.Status
	}{
		{5999, 10000, lc.StatusOK},
		{6000, 10000, lc.StatusCompactionNoProgress}, // at the threshold: compacts again
		{20000, 10000, lc.StatusCompactionNoProgress},
		{0, 0, lc.StatusOccupancyZeroLimit},
	} {
		err := lc.CheckCompactionProgress(c.post, c.limit, 6000)
		if (c.want == lc.StatusOK) != (err == nil) || (err != nil && !errors.Is(err, c.want)) {
			t.Errorf("CheckCompactionProgress(%d, %d) = %v, want %s", c.post, c.limit, err, c.want)
		}
	}
	// S14.6: fixed part + MaxSummaryTokens (2048) against RearmBelow (6000) of the limit.
	policy := []byte(`{"Automatic":true,"CounterPolicy":2,"CompactAt":8000,"RearmBelow":6000,"ReservedOutput":4096,` +
		`"SafetyMargin":512,"MaxSummaryTokens":2048,"CountTimeout":2000000000,"Hustle":"context.compact"}`)
	for _, c := range []struct {
		limit, fixed uint64
		want         lc.Status
	}{
		{10000, 3951, lc.StatusOK},                             // 5999 bp
		{10000, 3952, lc.StatusCompactionThresholdUnreachable}, // 6000 bp
		{10000, 1<<64 - 1, lc.StatusCompactionThresholdUnreachable},
		{0, 0, lc.StatusOccupancyZeroLimit},
	} {
		err := lc.CheckCompactionThreshold(policy, c.limit, c.fixed)
		if (c.want == lc.StatusOK) != (err == nil) || (err != nil && !errors.Is(err, c.want)) {
			t.Errorf("CheckCompactionThreshold(%d, %d) = %v, want %s", c.limit, c.fixed, err, c.want)
		}
	}
	// A policy that does not decode: the diagnosis of ValidateCompactionPolicy.
	bad := []byte(`{"Automatic":true}`)
	err := lc.CheckCompactionThreshold(bad, 10000, 0)
	want := lc.ValidateCompactionPolicy(bad, lc.QualityUnknown)
	var e, w *lc.Error
	if !errors.As(err, &e) || !errors.As(want, &w) || *e != *w || e.Status != lc.StatusPolicyWire || e.Rule == "" {
		t.Errorf("CheckCompactionThreshold on %s: %v, want %v", bad, err, want)
	}
}
