// amqp091-go as an amqp-bench client program. The library has no recovery by design: after a
// fault, the harness's `ensure` runs this program's loop (new connections with the harness
// loop's backoff, over every URL in turn, then every channel and consumer re-opened): the
// harness's recovery, labelled so, as for the amqplib control. Faults come from
// Connection.NotifyClose (a buffered receiver, always drained: an unbuffered one can deadlock
// the library, rabbitmq/amqp091-go#11 and #32).
package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"strings"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

type profile struct {
	heartbeat      time.Duration
	connectTimeout time.Duration
}

var profiles = map[string]profile{
	"defaults":   {heartbeat: 10 * time.Second, connectTimeout: 30 * time.Second},
	"normalised": {heartbeat: 5 * time.Second, connectTimeout: 2 * time.Second},
}

type publisher struct {
	confirms bool
	ch       *amqp.Channel
	// Its commands (publish, publish_run, flush), in order, on a goroutine of its own: a publish the
	// library holds (while blocked) holds this publisher only, never the program's command loop.
	queue chan command
}

type consumer struct {
	queue    string
	manual   bool
	prefetch int
	bodies   bool
	ch       *amqp.Channel
}

type tagRef struct {
	generation int
	ch         *amqp.Channel
	tag        uint64
}

type client struct {
	mu         sync.Mutex
	conn       *amqp.Connection
	socket     net.Conn
	up         bool
	outage     [3]string // kind, message, atNs
	generation int
	profile    profile
	backoff    backoff
	urls       []string
	urlIndex   int
	name       string
	publishers map[int]*publisher
	consumers  map[int]*consumer
	tags       map[uint64]tagRef
	nextTag    uint64
	probe      *probe // `recover`'s round trip while it is out
}

// probe is the marker of `recover`'s round trip and where its delivery's moment goes.
type probe struct {
	marker []byte
	back   chan string
}

func newClient() *client {
	return &client{publishers: map[int]*publisher{}, consumers: map[int]*consumer{}, tags: map[uint64]tagRef{}}
}

// classify gives the harness's word for what the library reported (src/client/faults.ts reads alike).
func classify(err error) string {
	var amqpErr *amqp.Error
	text := fmt.Sprint(err)
	if errors.As(err, &amqpErr) {
		if amqpErr.Code == amqp.ConnectionForced {
			return "broker_closed"
		}
		if amqpErr.Code == amqp.NotFound || amqpErr.Code == amqp.PreconditionFailed {
			return "channel_closed"
		}
	}
	switch {
	case strings.Contains(text, "connection reset") || strings.Contains(text, "broken pipe"):
		return "reset"
	case strings.Contains(text, "i/o timeout") || strings.Contains(strings.ToLower(text), "heartbeat"):
		return "heartbeat"
	case strings.Contains(text, "EOF") || strings.Contains(text, "use of closed network connection"):
		return "closed"
	}
	return "error"
}

// dial opens one connection to the next URL, keeping its socket so `destroy` can cut it.
func (c *client) dial() (*amqp.Connection, error) {
	url := c.urls[c.urlIndex%len(c.urls)]
	c.urlIndex++
	config := amqp.Config{Heartbeat: c.profile.heartbeat, Properties: amqp.Table{}}
	if c.name != "" {
		config.Properties["connection_name"] = c.name
	}
	base := amqp.DefaultDial(c.profile.connectTimeout)
	config.Dial = func(network, addr string) (net.Conn, error) {
		socket, err := base(network, addr)
		if err == nil {
			c.mu.Lock()
			c.socket = socket
			c.mu.Unlock()
		}
		return socket, err
	}
	return amqp.DialConfig(url, config)
}

// open connects once and re-opens every publisher and consumer; `attempts` > 0 says it recovered.
func (c *client) open(attempts int) error {
	conn, err := c.dial()
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.generation++
	generation := c.generation
	c.conn = conn
	c.tags = map[uint64]tagRef{}
	c.mu.Unlock()
	c.mu.Lock()
	publishers, consumers := handlesOf(c.publishers), handlesOf(c.consumers)
	c.mu.Unlock()
	for _, handle := range publishers {
		if err := c.openPublisher(handle); err != nil {
			conn.Close()
			return err
		}
	}
	for _, handle := range consumers {
		if err := c.openConsumer(handle); err != nil {
			conn.Close()
			return err
		}
	}
	closed := conn.NotifyClose(make(chan *amqp.Error, 1))
	blocked := conn.NotifyBlocked(make(chan amqp.Blocking, 4))
	go c.watch(generation, closed, blocked)
	c.mu.Lock()
	c.up = true
	c.mu.Unlock()
	if attempts > 0 {
		emit(map[string]interface{}{"ev": "recovered", "atNs": nowNs(), "attempts": attempts, "localPort": c.localPort()})
	}
	return nil
}

// watch tells the connection's fault (timed on receipt: the library's first word of it) and its blocking.
func (c *client) watch(generation int, closed chan *amqp.Error, blocked chan amqp.Blocking) {
	for {
		select {
		case err, ok := <-closed:
			at := nowNs()
			if !ok || err == nil {
				err = &amqp.Error{Reason: "connection closed"}
			}
			c.fault(generation, err, at)
			go func() {
				for range blocked {
				}
			}()
			return
		case b := <-blocked:
			if b.Active {
				signal("blocked", b.Reason)
			} else {
				signal("unblocked", "unblocked")
			}
		}
	}
}

func (c *client) fault(generation int, err error, at string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if generation != c.generation || !c.up {
		return
	}
	c.up = false
	c.outage = [3]string{classify(err), err.Error(), at}
	emit(map[string]interface{}{"ev": "fault", "kind": c.outage[0], "message": c.outage[1], "atNs": at})
}

func signal(kind, message string) {
	emit(map[string]interface{}{"ev": "signal", "kind": kind, "message": message, "atNs": nowNs()})
}

func (c *client) localPort() interface{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return nil
	}
	if addr, ok := c.conn.LocalAddr().(*net.TCPAddr); ok {
		return addr.Port
	}
	return nil
}

// watchChannel tells a channel the broker closed (the connection staying up) and a consumer it cancelled.
func watchChannel(ch *amqp.Channel) {
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	cancelled := ch.NotifyCancel(make(chan string, 4))
	go func() {
		for {
			select {
			case err, ok := <-closed:
				if ok && err != nil && err.Code >= 403 && err.Code <= 406 {
					signal("channel_closed", err.Error())
				}
				go func() {
					for range cancelled {
					}
				}()
				return
			case tag, ok := <-cancelled:
				if ok {
					signal("consumer_cancelled", "basic.cancel from the broker (consumer "+tag+")")
				}
			}
		}
	}()
}

func handlesOf[T any](entries map[int]T) []int {
	handles := make([]int, 0, len(entries))
	for handle := range entries {
		handles = append(handles, handle)
	}
	return handles
}

func (c *client) openPublisher(handle int) error {
	c.mu.Lock()
	entry, conn := c.publishers[handle], c.conn
	c.mu.Unlock()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	if entry.confirms {
		if err := ch.Confirm(false); err != nil {
			return err
		}
	}
	watchChannel(ch)
	c.mu.Lock()
	entry.ch = ch
	c.mu.Unlock()
	return nil
}

func (c *client) openConsumer(handle int) error {
	c.mu.Lock()
	entry, conn, generation := c.consumers[handle], c.conn, c.generation
	c.mu.Unlock()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	if entry.prefetch > 0 {
		if err := ch.Qos(entry.prefetch, 0, false); err != nil {
			return err
		}
	}
	watchChannel(ch)
	deliveries, err := ch.Consume(entry.queue, "", !entry.manual, false, false, false, nil)
	if err != nil {
		return err
	}
	c.mu.Lock()
	entry.ch = ch
	c.mu.Unlock()
	go c.deliver(handle, entry, generation, ch, deliveries)
	return nil
}

// countsEvery is how often a consumer that only counts (bodies false) tells its count at most: the
// Python programs' outbox flushes as often (OUTBOX_STALE_NS). One line per delivery kept the
// harness's thread reading a line for every message.
const countsEvery = 20 * time.Millisecond

// counter tells a consumer's count at most every countsEvery, and what is left once that long has passed.
type counter struct {
	mu      sync.Mutex
	handle  int
	pending int
	told    time.Time
	timer   *time.Timer
}

func (n *counter) add(count int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.pending += count
	if wait := countsEvery - time.Since(n.told); wait > 0 {
		if n.timer == nil {
			n.timer = time.AfterFunc(wait, n.flush)
		}
		return
	}
	n.tell()
}

func (n *counter) flush() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.timer = nil
	n.tell()
}

// tell emits what was counted since the last line (under mu).
func (n *counter) tell() {
	if n.pending == 0 {
		return
	}
	emit(map[string]interface{}{"ev": "delivered", "consumer": n.handle, "count": n.pending, "atNs": nowNs()})
	n.pending, n.told = 0, time.Now()
}

// deliver hands deliveries over as they come, every one already waiting in the same line (a consumer
// that only counts: its count, at most every countsEvery).
func (c *client) deliver(handle int, entry *consumer, generation int, ch *amqp.Channel, deliveries <-chan amqp.Delivery) {
	counted := &counter{handle: handle}
	for first := range deliveries {
		c.sawDelivery(first.Body)
		batch := []amqp.Delivery{first}
	more:
		for len(batch) < 512 {
			select {
			case next, ok := <-deliveries:
				if !ok {
					break more
				}
				c.sawDelivery(next.Body)
				batch = append(batch, next)
			default:
				break more
			}
		}
		if !entry.bodies {
			if entry.manual {
				for _, d := range batch {
					d.Ack(false)
				}
			}
			counted.add(len(batch))
			continue
		}
		messages := make([]map[string]interface{}, len(batch))
		c.mu.Lock()
		for i, d := range batch {
			c.nextTag++
			c.tags[c.nextTag] = tagRef{generation: generation, ch: ch, tag: d.DeliveryTag}
			messages[i] = map[string]interface{}{"tag": c.nextTag, "body": base64.StdEncoding.EncodeToString(d.Body), "redelivered": d.Redelivered}
		}
		c.mu.Unlock()
		emit(map[string]interface{}{"ev": "deliveries", "consumer": handle, "messages": messages})
	}
}

// ensure is the harness's loop: attempts with its backoff until the deadline.
func (c *client) ensure(cmd command) {
	attempts, err := c.reconnect(cmd.DeadlineMs)
	if err != nil {
		failure(cmd.ID, "timeout", err.Error(), "", "")
		return
	}
	reply(cmd.ID, map[string]interface{}{"attempts": attempts, "connectedNs": nowNs()})
}

// reconnect dials with the harness loop's backoff until the deadline; the attempts it took (0: it was up).
func (c *client) reconnect(deadlineMs int) (int, error) {
	c.mu.Lock()
	up := c.up
	c.mu.Unlock()
	if up {
		return 0, nil
	}
	deadline := time.Now().Add(time.Duration(deadlineMs) * time.Millisecond)
	var last error
	for attempt := 1; ; attempt++ {
		c.mu.Lock()
		old := c.conn
		c.mu.Unlock()
		if old != nil {
			old.Close()
		}
		if last = c.open(attempt); last == nil {
			return attempt, nil
		}
		delay := backoffDelay(c.backoff, attempt)
		if time.Now().Add(delay).After(deadline) {
			return attempt, fmt.Errorf("could not reconnect within %d ms (%d attempts): %v", deadlineMs, attempt, last)
		}
		time.Sleep(delay)
	}
}

// recover is `ensure`, then a probe published to the consumer's own queue and taken from its delivery,
// timed here from the moment this goroutine took the command up (what --bare-recovery times).
func (c *client) recover(cmd command) {
	started := nowNs()
	attempts, err := c.reconnect(cmd.DeadlineMs)
	if err != nil {
		failure(cmd.ID, "timeout", err.Error(), "", "")
		return
	}
	connected := nowNs()
	c.mu.Lock()
	entry := c.consumers[cmd.Consumer]
	c.mu.Unlock()
	if entry == nil {
		failure(cmd.ID, "invalid", fmt.Sprintf("no consumer %d to prove the recovery with", cmd.Consumer), "", "")
		return
	}
	out := &probe{marker: []byte("probe-" + nowNs()), back: make(chan string, 1)}
	c.mu.Lock()
	c.probe = out
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.probe = nil
		c.mu.Unlock()
	}()
	if code, text, kind := c.publish(cmd.Publisher, "", entry.queue, out.marker, false, 0); code != "" {
		c.settle(cmd.ID, code, text, kind)
		return
	}
	timer := time.NewTimer(time.Duration(cmd.RoundTripBound) * time.Millisecond)
	defer timer.Stop()
	select {
	case back := <-out.back:
		reply(cmd.ID, map[string]interface{}{"attempts": attempts, "connectedNs": connected, "recoveryStartedNs": started, "recoveredNs": back})
	case <-timer.C:
		failure(cmd.ID, "timeout", fmt.Sprintf("the probe did not come back within %d ms", cmd.RoundTripBound), "", "")
	}
}

// sawDelivery times the probe of `recover` as the library handed it over.
func (c *client) sawDelivery(body []byte) {
	c.mu.Lock()
	out := c.probe
	c.mu.Unlock()
	if out != nil && string(body) == string(out.marker) {
		select {
		case out.back <- nowNs():
		default:
		}
	}
}

func backoffDelay(b backoff, attempt int) time.Duration {
	base := b.InitialDelayMs
	for i := 1; i < attempt && base < b.MaxDelayMs; i++ {
		base *= b.Factor
	}
	if base > b.MaxDelayMs {
		base = b.MaxDelayMs
	}
	spread := base * b.Jitter
	ms := base + (rand.Float64()*2-1)*spread
	if ms < 0 {
		ms = 0
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// publish sends one message: plain, handed to the socket; with confirms, waits for the broker's word
// for at most `confirmBound` (0: as long as the library makes it wait). A confirm still unsettled
// at the bound is `unsettled`: amqp091-go gives no word of its own for a confirm it lost.
func (c *client) publish(handle int, exchange, key string, body []byte, persistent bool, confirmBound time.Duration) (string, string, string) {
	c.mu.Lock()
	up, outage := c.up, c.outage
	entry := c.publishers[handle]
	var ch *amqp.Channel
	if entry != nil {
		ch = entry.ch
	}
	c.mu.Unlock()
	if !up {
		return "fault", outage[1], outage[0]
	}
	if ch == nil {
		return "unsupported", fmt.Sprintf("no open publisher %d", handle), ""
	}
	mode := amqp.Transient
	if persistent {
		mode = amqp.Persistent
	}
	message := amqp.Publishing{Body: body, DeliveryMode: mode}
	if !entry.confirms {
		if err := ch.PublishWithContext(context.Background(), exchange, key, false, false, message); err != nil {
			return "fault", err.Error(), classify(err)
		}
		return "", "", ""
	}
	confirmation, err := ch.PublishWithDeferredConfirmWithContext(context.Background(), exchange, key, false, false, message)
	if err != nil {
		return "fault", err.Error(), classify(err)
	}
	if confirmBound <= 0 {
		return c.awaitConfirm(ch, confirmation)
	}
	settled := make(chan [3]string, 1)
	go func() {
		code, text, kind := c.awaitConfirm(ch, confirmation)
		settled <- [3]string{code, text, kind}
	}()
	timer := time.NewTimer(confirmBound)
	defer timer.Stop()
	select {
	case outcome := <-settled:
		return outcome[0], outcome[1], outcome[2]
	case <-timer.C:
		// The waiting goroutine stays until the library settles it (a channel's close nacks it) or the program ends.
		return "unsettled", fmt.Sprintf("the confirm of delivery tag %d did not settle within %d ms", confirmation.DeliveryTag, confirmBound.Milliseconds()), ""
	}
}

// awaitConfirm waits for the broker's word on one confirmed publish.
func (c *client) awaitConfirm(ch *amqp.Channel, confirmation *amqp.DeferredConfirmation) (string, string, string) {
	if confirmation.Wait() {
		return "", "", ""
	}
	// amqp091-go 1.5 settles a closed channel's pending confirms as nacks (confirms.go, deferredConfirmations.Close).
	if ch.IsClosed() {
		c.mu.Lock()
		kind, text := c.outage[0], c.outage[1]
		c.mu.Unlock()
		if kind == "" {
			kind, text = "channel_closed", "channel closed before the confirm"
		}
		return "fault", text, kind
	}
	return "nacked", "basic.nack from the broker", ""
}

// publishDeferred sends one confirmed publish without waiting for its confirm.
func (c *client) publishDeferred(cmd command) (*amqp.Channel, *amqp.DeferredConfirmation, string, string, string) {
	c.mu.Lock()
	up, outage := c.up, c.outage
	var ch *amqp.Channel
	if entry := c.publishers[cmd.Publisher]; entry != nil {
		ch = entry.ch
	}
	c.mu.Unlock()
	if !up {
		return nil, nil, "fault", outage[1], outage[0]
	}
	if ch == nil {
		return nil, nil, "unsupported", fmt.Sprintf("no open publisher %d", cmd.Publisher), ""
	}
	mode := amqp.Transient
	if cmd.Persistent {
		mode = amqp.Persistent
	}
	message := amqp.Publishing{Body: cmd.Body, DeliveryMode: mode}
	confirmation, err := ch.PublishWithDeferredConfirmWithContext(context.Background(), cmd.Exchange, cmd.RoutingKey, false, false, message)
	if err != nil {
		return nil, nil, "fault", err.Error(), classify(err)
	}
	return ch, confirmation, "", "", ""
}
