package loopcompact

// Streaming validation (SPEC §17.3): the summariser's reply checked chunk by chunk as it arrives,
// so that a host can stop a doomed call at the first chunk after which no continuation can make
// the reply a valid summary.

/*
#include "loopcompact.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
)

// ErrStreamClosed is returned by the methods of a SummaryStream after Close.
var ErrStreamClosed = errors.New("loopcompact: summary stream is closed")

// liveStreams counts the stream handles not yet freed (read by the finalizer tests).
var liveStreams atomic.Int64

// SummaryStream validates a summary that arrives in chunks (lc_summary_stream). Feed each chunk
// as it arrives (any size, cut anywhere: inside a UTF-8 sequence, a reference, a tag): it returns
// an *Error once no continuation can make the reply a valid summary (T17.3), with the diagnosis
// known then, and the same *Error for every later chunk. Finish gives exactly what
// ValidateSummaryXML gives for everything fed (T17.4). Its memory is fixed whatever the reply's
// length: it keeps no text.
//
// Calls are serialised by a mutex, so a stream may be used from several goroutines, one call at a
// time. Release it with Close; a finalizer frees it if it becomes unreachable first.
type SummaryStream struct {
	mu  sync.Mutex
	ptr *C.lc_summary_stream
}

// NewSummaryStream creates a stream with nothing fed (lc_summary_stream_new).
func NewSummaryStream() (*SummaryStream, error) {
	var h *C.lc_summary_stream
	if err := check(C.lc_summary_stream_new(&h)); err != nil {
		return nil, err
	}
	s := &SummaryStream{ptr: h}
	liveStreams.Add(1)
	runtime.SetFinalizer(s, (*SummaryStream).Close)
	return s, nil
}

// Feed reads the next chunk of the reply (lc_summary_stream_feed; on a failure
// lc_summary_stream_feed_diagnose says where). It returns nil while
// the reply is viable, else an *Error with the status of the problem (StatusSummaryXML*) and the
// diagnosis known when the reply died: Offset, Line and Column count from the start of the reply
// (a rejected token at its first byte); DeadOffset is the byte that killed it.
func (s *SummaryStream) Feed(chunk []byte) error {
	if s == nil {
		return ErrStreamClosed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ptr == nil {
		return ErrStreamClosed
	}
	p, n := bytesArg(chunk)
	rc := C.lc_summary_stream_feed(s.ptr, p, n)
	runtime.KeepAlive(chunk)
	// A dead stream reads nothing more: an empty feed gives its diagnosis.
	return diagnosed(rc, func(d *C.lc_diagnostic) C.lc_status { return C.lc_summary_stream_feed_diagnose(s.ptr, nil, 0, d) })
}

// Finish returns exactly what ValidateSummaryXML returns for the concatenation of the chunks fed
// so far (lc_summary_stream_finish, diagnosed by lc_summary_stream_finish_diagnose). The stream is not ended: more chunks may be fed
// after it.
func (s *SummaryStream) Finish() error {
	if s == nil {
		return ErrStreamClosed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ptr == nil {
		return ErrStreamClosed
	}
	return diagnosed(C.lc_summary_stream_finish(s.ptr), func(d *C.lc_diagnostic) C.lc_status {
		return C.lc_summary_stream_finish_diagnose(s.ptr, d)
	})
}

// DeadOffset is the offset from the start of the reply of the byte at which it died, and true;
// or 0 and false while it is viable (and after Close).
func (s *SummaryStream) DeadOffset() (uint64, bool) {
	if s == nil {
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ptr == nil {
		return 0, false
	}
	offset := uint64(C.lc_summary_stream_dead_offset(s.ptr))
	if offset == OffsetUnknown {
		return 0, false
	}
	return offset, true
}

// Close releases the handle (lc_summary_stream_free). It waits for a call in progress on another
// goroutine, is idempotent, and always returns nil.
func (s *SummaryStream) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	h := s.ptr
	s.ptr = nil
	s.mu.Unlock()
	if h != nil {
		C.lc_summary_stream_free(h)
		liveStreams.Add(-1)
		runtime.SetFinalizer(s, nil)
	}
	return nil
}
