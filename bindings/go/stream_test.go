package loopcompact_test

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"

	lc "github.com/loopcompact/loopcompact/bindings/go"
)

// verdictOf is nil, or the status, offset and rule of an *Error.
func verdictOf(t *testing.T, err error) *[3]any {
	t.Helper()
	if err == nil {
		return nil
	}
	var e *lc.Error
	if !errors.As(err, &e) {
		t.Fatalf("not an *Error: %v", err)
	}
	return &[3]any{e.Status, e.Offset, e.Rule}
}

// Every summary_xml vector in chunks of 1, 7, 64 bytes and whole: Finish gives ValidateSummaryXML's
// verdict, a valid summary never dies, and a dead one fails with its diagnosis at or before the
// byte that killed it.
func TestSummaryStreamEveryVectorInChunks(t *testing.T) {
	for _, r := range loadRows(t, filepath.Join(vectorDir, "summary_xml.jsonl")) {
		doc := r.doc(t, "xml")
		whole := verdictOf(t, lc.ValidateSummaryXML(doc))
		if (whole == nil) != (r.str("expect") == "ok") {
			t.Fatalf("%s: ValidateSummaryXML disagrees with the vector", r.name())
		}
		for _, size := range []int{1, 7, 64, len(doc) + 1} {
			s, err := lc.NewSummaryStream()
			if err != nil {
				t.Fatal(err)
			}
			var died error
			for at := 0; at < len(doc); at += size {
				err := s.Feed(doc[at:min(at+size, len(doc))])
				if died == nil {
					died = err
				} else if *verdictOf(t, err) != *verdictOf(t, died) {
					t.Errorf("%s/%d: a later feed gave another error: %v, then %v", r.name(), size, died, err)
				}
			}
			got := verdictOf(t, s.Finish())
			if (got == nil) != (whole == nil) || (got != nil && *got != *whole) {
				t.Errorf("%s/%d: Finish %v, ValidateSummaryXML %v", r.name(), size, got, whole)
			}
			dead, isDead := s.DeadOffset()
			if died == nil {
				if isDead {
					t.Errorf("%s/%d: no feed failed, yet dead at %d", r.name(), size, dead)
				}
			} else {
				var e *lc.Error
				errors.As(died, &e)
				if whole == nil || !isDead || dead >= uint64(len(doc)) || e.Offset > dead || e.Class() != lc.ClassRetry {
					t.Errorf("%s/%d: died %v at %d (%v), whole %v", r.name(), size, died, dead, isDead, whole)
				}
			}
			s.Close()
		}
	}
}

// " <notes>" after the goal: the space is blank text between sections; the next start tag must be
// <constraints>, so the reply dies at the "n" (36 + 2); the diagnosis names the tag at its "<".
func TestSummaryStreamDeadChunk(t *testing.T) {
	s, err := lc.NewSummaryStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first := "<conversation_summary><goal>a</goal>" // 22 + 6 + 1 + 7 = 36 bytes
	if len(first) != 36 {
		t.Fatal(len(first))
	}
	if err := s.Feed([]byte(first)); err != nil {
		t.Fatal(err)
	}
	if _, dead := s.DeadOffset(); dead {
		t.Fatal("dead after a viable prefix")
	}
	err = s.Feed([]byte(" <notes>"))
	var e *lc.Error
	if !errors.As(err, &e) || e.Status != lc.StatusSummaryXMLStructure || e.Offset != 37 || e.Line != 1 || e.Column != 38 {
		t.Fatalf("feed: %v (%+v)", err, e)
	}
	if at, dead := s.DeadOffset(); !dead || at != 38 {
		t.Fatalf("DeadOffset %d %v, want 38", at, dead)
	}
	for _, later := range []string{"<constraints/>", "", "x"} {
		var again *lc.Error
		if !errors.As(s.Feed([]byte(later)), &again) || again.Offset != 37 || again.Status != e.Status {
			t.Fatalf("later feed %q: %v", later, again)
		}
	}
}

// A reference and a UTF-8 sequence cut by chunk ends stay viable; Finish does not end the stream.
func TestSummaryStreamCutsAndFinish(t *testing.T) {
	s, err := lc.NewSummaryStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, chunk := range []string{"<conversation_summary><goal>a &am", "p; caf\xc3", "\xa9</goal><constraints/>"} {
		if err := s.Feed([]byte(chunk)); err != nil {
			t.Fatalf("%q: %v", chunk, err)
		}
	}
	if !errors.Is(s.Finish(), lc.StatusSummaryXMLSyntax) { // the end inside an open element (X4.16)
		t.Fatal("Finish of a prefix accepted it")
	}
	if err := s.Feed([]byte("<decisions/><state>s</state><open_items/></conversation_summary>")); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s.Close()
	if err := s.Feed([]byte("x")); !errors.Is(err, lc.ErrStreamClosed) {
		t.Fatalf("Feed after Close: %v", err)
	}
	if err := s.Finish(); !errors.Is(err, lc.ErrStreamClosed) {
		t.Fatalf("Finish after Close: %v", err)
	}
	if _, dead := s.DeadOffset(); dead {
		t.Fatal("a closed stream is dead")
	}
}

// Feeds from several goroutines are serialised: the offset of the byte after the root counts them all.
func TestSummaryStreamConcurrentFeeds(t *testing.T) {
	s, err := lc.NewSummaryStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	head, tail := "<conversation_summary><goal>x", "</goal><constraints/><decisions/><state>s</state><open_items/></conversation_summary>"
	if err := s.Feed([]byte(head)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				if err := s.Feed([]byte("a &amp; b ")); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := s.Feed([]byte(tail)); err != nil {
		t.Fatal(err)
	}
	if err := s.Feed([]byte("!")); err == nil {
		t.Fatal("a byte after the root was accepted")
	}
	if at, _ := s.DeadOffset(); at != uint64(len(head)+4*500*10+len(tail)) {
		t.Fatalf("dead at %d", at)
	}
}
