// Bare recovery (`amqp091-client --bare-recovery ...`): one connection of the library alone, no
// protocol and no harness code in its path - the other side of the recovery harness-overhead check
// of amqp091-go (src/recovery/bareProgramConsumers.ts starts one per thread, as the harness starts
// one client program per connection), with the lines of adapters/python/bare_recovery.py (see
// there): it consumes its queue with the profile's settings (the table in amqp091_client.go), makes
// a round trip, notes the moment NotifyClose tells the fault, and once told the fault is gone dials
// again with the harness loop's backoff (what the program's `ensure` does), consumes again and makes
// another round trip. Its recovery time spans what the client program's `recover` spans: from the
// moment the goroutine that recovers took up the word that the fault is gone to the moment the
// library handed the round trip's marker to the consumer's goroutine.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

type bareRecord struct {
	LocalPort         interface{} `json:"local_port"`
	ReadyNs           *string     `json:"ready_ns"`
	DetectedNs        *string     `json:"detected_ns"`
	Cause             string      `json:"cause"`
	RecoveryStartedNs *string     `json:"recovery_started_ns"`
	RecoveredNs       *string     `json:"recovered_ns"`
	Attempts          int         `json:"attempts"`
	Deliveries        int         `json:"deliveries"`
	Error             string      `json:"error,omitempty"`
}

type bareLink struct {
	url, queue   string
	p            profile
	mu           sync.Mutex
	record       bareRecord
	marker       []byte
	markerBack   chan struct{}
	markerBackNs string
	conn         *amqp.Connection
	probes       *amqp.Channel
	closed       chan *amqp.Error
}

func stamp() *string { s := nowNs(); return &s }

// note changes the record under the lock the report reads it with.
func (b *bareLink) note(change func(record *bareRecord)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	change(&b.record)
}

// open dials with the profile's settings, consumes the queue (automatic ack) and opens a probe channel.
func (b *bareLink) open() error {
	conn, err := amqp.DialConfig(b.url, amqp.Config{Heartbeat: b.p.heartbeat, Dial: amqp.DefaultDial(b.p.connectTimeout)})
	if err != nil {
		return err
	}
	closed := conn.NotifyClose(make(chan *amqp.Error, 1))
	ch, err := conn.Channel()
	if err == nil {
		var deliveries <-chan amqp.Delivery
		if deliveries, err = ch.Consume(b.queue, "", true, false, false, false, nil); err == nil {
			go b.count(deliveries)
			b.probes, err = conn.Channel()
		}
	}
	if err != nil {
		conn.Close()
		return err
	}
	b.mu.Lock()
	b.conn, b.closed = conn, closed
	b.mu.Unlock()
	return nil
}

func (b *bareLink) count(deliveries <-chan amqp.Delivery) {
	for delivery := range deliveries {
		b.mu.Lock()
		b.record.Deliveries++
		if b.markerBack != nil && string(delivery.Body) == string(b.marker) {
			// Timed as the library handed it over, as the client program's `recover` times its probe.
			b.markerBackNs = nowNs()
			close(b.markerBack)
			b.markerBack = nil
		}
		b.mu.Unlock()
	}
}

// roundTrip sends a marker on the probe channel and waits for it to come back through the consumer.
func (b *bareLink) roundTrip(bound time.Duration) error {
	back := make(chan struct{})
	b.mu.Lock()
	b.marker, b.markerBack = []byte("probe-"+nowNs()), back
	marker := b.marker
	b.mu.Unlock()
	if err := b.probes.PublishWithContext(context.Background(), "", b.queue, false, false, amqp.Publishing{Body: marker}); err != nil {
		return err
	}
	select {
	case <-back:
		return nil
	case <-time.After(bound):
		return fmt.Errorf("the round trip did not come back within %v", bound)
	}
}

// reconnect dials until it connects, with the harness loop's backoff, within the bound.
func (b *bareLink) reconnect(policy backoff, bound time.Duration) error {
	deadline := time.Now().Add(bound)
	for attempt := 1; ; attempt++ {
		b.note(func(r *bareRecord) { r.Attempts = attempt })
		err := b.open()
		if err == nil {
			return nil
		}
		delay := backoffDelay(policy, attempt)
		if time.Now().Add(delay).After(deadline) {
			return fmt.Errorf("could not reconnect within %v (%d attempts): %v", bound, attempt, err)
		}
		time.Sleep(delay)
	}
}

func (b *bareLink) run(policy backoff, bound time.Duration, removed <-chan struct{}) error {
	if err := b.open(); err != nil {
		return err
	}
	if addr, ok := b.conn.LocalAddr().(*net.TCPAddr); ok {
		b.note(func(r *bareRecord) { r.LocalPort = addr.Port })
	}
	for warm := false; !warm; time.Sleep(10 * time.Millisecond) {
		b.mu.Lock()
		warm = b.record.Deliveries > 0
		b.mu.Unlock()
	}
	if err := b.roundTrip(bound); err != nil {
		return err
	}
	b.note(func(r *bareRecord) { r.ReadyNs = stamp() })
	emit(map[string]interface{}{"ready": true})
	fault := <-b.closed
	detected := stamp()
	b.note(func(r *bareRecord) { r.DetectedNs, r.Cause = detected, classify(fault) })
	emit(map[string]interface{}{"detected": true})
	<-removed
	b.note(func(r *bareRecord) { r.RecoveryStartedNs = stamp() })
	if err := b.reconnect(policy, bound); err != nil {
		return err
	}
	if err := b.roundTrip(bound); err != nil {
		return err
	}
	b.note(func(r *bareRecord) { back := b.markerBackNs; r.RecoveredNs = &back })
	emit(map[string]interface{}{"recovered": true})
	return nil
}

func bareRecovery(args []string) error {
	flags := flag.NewFlagSet("bare-recovery", flag.ContinueOnError)
	queue := flags.String("queue", "", "an existing queue, fed by whoever drives this")
	boundMs := flags.Int("bound-ms", 30000, "bound on every wait")
	options := flags.String("options", "{}", `{"profile":"defaults"|"normalised","backoff":{...}}`)
	flags.String("client", "amqp091-go", "the client (only amqp091-go here)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *queue == "" {
		return fmt.Errorf("--queue NAME is required")
	}
	chosen, err := bareOptionsOf(*options)
	if err != nil {
		return err
	}
	link := &bareLink{url: bareURL(), queue: *queue, p: chosen.profile(), record: bareRecord{Cause: "none"}}
	removed := make(chan struct{})
	bound := time.Duration(*boundMs) * time.Millisecond
	go func() {
		if err := link.run(chosen.Backoff, bound, removed); err != nil {
			link.note(func(r *bareRecord) { r.Error = err.Error() })
			emit(map[string]interface{}{"failed": true, "error": err.Error()})
		}
	}()
	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		switch line := scanner.Text(); line {
		case "removed":
			close(removed)
		case "report":
			link.mu.Lock()
			record := link.record
			link.mu.Unlock()
			emit(map[string]interface{}{"record": record})
		case "":
		default:
			return fmt.Errorf("unknown command %q on stdin; expected \"removed\" or \"report\"", line)
		}
	}
	link.mu.Lock()
	conn := link.conn
	link.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
	return nil
}
