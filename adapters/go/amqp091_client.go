// amqp091-go as an amqp-bench client program. The library has no recovery by design: after a
// fault, the harness's `ensure` runs this program's loop (new connections with the harness
// loop's backoff, over every URL in turn, then every channel and consumer re-opened): the
// harness's recovery, labelled so, as for the amqplib control. Faults come from
// Connection.NotifyClose (a buffered receiver, always drained: an unbuffered one can deadlock
// the library, rabbitmq/amqp091-go#11 and #32).
package main

import (
	"errors"
	"fmt"
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
	tracker  *confirmTracker // ch's confirms (with confirms on), amqp091_confirms.go
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
