// The amqp-bench client protocol, version 2 (schemas/client-protocol.schema.json), for a Go
// client program: one JSON command per line on stdin, one JSON reply or event per line on stdout.
// Every time is CLOCK_MONOTONIC in ns (the runtime's nanotime on Linux: the clock of Node's
// process.hrtime.bigint()), so the harness compares it with its own.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"sync"
	_ "unsafe" // for go:linkname
)

const protocolVersion = 2

//go:linkname nanotime runtime.nanotime
func nanotime() int64

func nowNs() string { return strconv.FormatInt(nanotime(), 10) }

type command struct {
	Op             string          `json:"op"`
	ID             int             `json:"id"`
	Profile        string          `json:"profile"`
	URLs           []string        `json:"urls"`
	ConnectionName string          `json:"connectionName"`
	StartBoundMs   int             `json:"startBoundMs"`
	HarnessBackoff backoff         `json:"harnessBackoff"`
	Confirms       bool            `json:"confirms"`
	Publisher      int             `json:"publisher"`
	Exchange       string          `json:"exchange"`
	RoutingKey     string          `json:"routingKey"`
	Body           []byte          `json:"body"` // base64 in JSON, as encoding/json reads []byte
	Persistent     bool            `json:"persistent"`
	Count          int             `json:"count"`
	SizeBytes      int             `json:"sizeBytes"`
	BoundMs        int             `json:"boundMs"`
	PublishBoundMs int             `json:"publishBoundMs"`
	Consumer       int             `json:"consumer"`
	Queue          string          `json:"queue"`
	Ack            string          `json:"ack"`
	Prefetch       int             `json:"prefetch"`
	Bodies         bool            `json:"bodies"`
	Tags           []uint64        `json:"tags"`
	Multiple       bool            `json:"multiple"`
	Requeue        bool            `json:"requeue"`
	DeadlineMs     int             `json:"deadlineMs"`
	RoundTripBound int             `json:"roundTripBoundMs"`
	Reason         string          `json:"reason"`
	Raw            json.RawMessage `json:"-"`
}

type backoff struct {
	InitialDelayMs float64 `json:"initialDelayMs"`
	MaxDelayMs     float64 `json:"maxDelayMs"`
	Factor         float64 `json:"factor"`
	Jitter         float64 `json:"jitter"`
}

// out writes one line per message; a closed stdout (the harness is gone) ends the program.
var out = struct {
	sync.Mutex
	w *bufio.Writer
}{w: bufio.NewWriterSize(os.Stdout, 1<<16)}

func emit(message map[string]interface{}) {
	line, err := json.Marshal(message)
	if err != nil {
		panic(err)
	}
	out.Lock()
	defer out.Unlock()
	out.w.Write(line)
	out.w.WriteByte('\n')
	if out.w.Flush() != nil {
		os.Exit(0)
	}
}

func reply(id int, fields map[string]interface{}) {
	message := map[string]interface{}{"re": id, "ok": true}
	for k, v := range fields {
		message[k] = v
	}
	emit(message)
}

// failure codes: fault (with kind and atNs), nacked, timeout, unsupported, invalid, closed.
func failure(id int, code, text string, kind string, atNs string) {
	if len(text) > 500 {
		text = text[:500]
	}
	message := map[string]interface{}{"re": id, "ok": false, "code": code, "error": text}
	if kind != "" {
		message["kind"] = kind
	}
	if atNs != "" {
		message["atNs"] = atNs
	}
	emit(message)
}

// latencies in µs as the protocol's histogram (above 1000 µs, 3 significant digits).
type latencyHistogram map[int64]int

func (h latencyHistogram) record(elapsedNs int64) {
	us := elapsedNs / 1000
	if us >= 1000 {
		scale := int64(1)
		for us/scale >= 1000 {
			scale *= 10
		}
		us = (us + scale/2) / scale * scale
	}
	h[us]++
}

func (h latencyHistogram) encode() map[string]interface{} {
	values := make([]int64, 0, len(h))
	for v := range h {
		values = append(values, v)
	}
	for i := 1; i < len(values); i++ {
		for j := i; j > 0 && values[j] < values[j-1]; j-- {
			values[j], values[j-1] = values[j-1], values[j]
		}
	}
	counts := make([]int, len(values))
	for i, v := range values {
		counts[i] = h[v]
	}
	return map[string]interface{}{"valuesUs": values, "counts": counts}
}
