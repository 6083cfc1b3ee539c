package loopcompact

import (
	"runtime"
	"testing"
	"time"
)

// An Input dropped without Close is freed by its finalizer (the safety net), and an Input that was
// closed is not freed a second time.
func TestFinalizerFreesDroppedInput(t *testing.T) {
	wire := []byte(`{"version":1,"basis":{"revision":3,"through_event_id":"7c9e6679-7425-40de-944b-e07fc1f90ae7"},` +
		`"model":{"provider":"provider","model":"model"},` +
		`"request_fingerprint":"0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",` +
		`"transcript":[{"role":"user","blocks":[{"type":"text","text":"hello"}]}],"max_summary_tokens":32}`)
	base := liveInputs.Load()
	func() {
		for i := 0; i < 100; i++ {
			in, err := ParseInput(wire)
			if err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				in.Close()
			}
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for liveInputs.Load() > base && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := liveInputs.Load(); n != base {
		t.Fatalf("%d handles still live after GC (baseline %d)", n, base)
	}
}

// A Conversion dropped without Close is freed by its finalizer, and a closed one is not freed a
// second time.
func TestFinalizerFreesDroppedConversion(t *testing.T) {
	base := liveConversions.Load()
	func() {
		for i := 0; i < 100; i++ {
			c, err := FromOpenAIChat([]byte(`[{"role":"user","content":"hello"}]`))
			if err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				c.Close()
			}
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for liveConversions.Load() > base && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := liveConversions.Load(); n != base {
		t.Fatalf("%d conversion handles still live after GC (baseline %d)", n, base)
	}
}

// A SummaryStream dropped without Close is freed by its finalizer, and a closed one is not freed a
// second time.
func TestFinalizerFreesDroppedSummaryStream(t *testing.T) {
	base := liveStreams.Load()
	func() {
		for i := 0; i < 100; i++ {
			s, err := NewSummaryStream()
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Feed([]byte("<conversation_summary>")); err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				s.Close()
			}
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for liveStreams.Load() > base && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := liveStreams.Load(); n != base {
		t.Fatalf("%d stream handles still live after GC (baseline %d)", n, base)
	}
}
