// The program's main: `--describe`, or the protocol on stdin / stdout until the end of stdin.
// Built by scripts/setup-clients.sh against Debian's golang-github-rabbitmq-amqp091-go-dev (GOPATH
// /usr/share/gocode, nothing downloaded); GOPATH_AMQP091 points it at another copy of the library.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--bare-publish" {
		if err := barePublish(os.Args[2:]); err != nil {
			fmt.Fprintf(os.Stderr, "bare-publish: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "--bare-recovery" {
		if err := bareRecovery(os.Args[2:]); err != nil {
			fmt.Fprintf(os.Stderr, "bare-recovery: %v\n", err)
			os.Exit(1)
		}
		return
	}
	for _, arg := range os.Args[1:] {
		if arg == "--describe" {
			line, _ := json.Marshal(describe())
			fmt.Println(string(line))
			return
		}
	}
	c := newClient()
	emit(map[string]interface{}{"ev": "hello", "protocol": protocolVersion, "atNs": nowNs()})
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	for scanner.Scan() {
		var cmd command
		if err := json.Unmarshal(scanner.Bytes(), &cmd); err != nil {
			fmt.Fprintf(os.Stderr, "not a command: %.200s\n", scanner.Text())
			continue
		}
		if cmd.Op == "close" {
			c.close(cmd)
			return
		}
		c.handle(cmd)
	}
	// End of stdin: the harness is gone or stopped us.
	c.close(command{BoundMs: 2000})
}

func (c *client) handle(cmd command) {
	switch cmd.Op {
	case "clock":
		reply(cmd.ID, map[string]interface{}{"nowNs": nowNs()})
	case "connect":
		c.connect(cmd)
	case "publisher":
		entry := &publisher{confirms: cmd.Confirms, queue: make(chan command, 1<<14)}
		c.mu.Lock()
		c.publishers[cmd.Publisher] = entry
		c.mu.Unlock()
		go c.runPublisher(entry)
		c.answer(cmd.ID, c.reopen(func() error { return c.openPublisher(cmd.Publisher) }))
	case "publish", "publish_run", "flush":
		c.mu.Lock()
		entry := c.publishers[cmd.Publisher]
		c.mu.Unlock()
		if entry == nil {
			failure(cmd.ID, "invalid", fmt.Sprintf("no publisher %d", cmd.Publisher), "", "")
			return
		}
		entry.queue <- cmd
	case "close_publisher":
		c.mu.Lock()
		entry := c.publishers[cmd.Publisher]
		delete(c.publishers, cmd.Publisher)
		c.mu.Unlock()
		if entry != nil && entry.ch != nil {
			entry.ch.Close()
		}
		reply(cmd.ID, nil)
	case "consume":
		c.mu.Lock()
		c.consumers[cmd.Consumer] = &consumer{queue: cmd.Queue, manual: cmd.Ack == "manual", prefetch: cmd.Prefetch, bodies: cmd.Bodies}
		c.mu.Unlock()
		c.answer(cmd.ID, c.reopen(func() error { return c.openConsumer(cmd.Consumer) }))
	case "ack", "nack":
		c.ack(cmd)
	case "cancel":
		c.mu.Lock()
		entry := c.consumers[cmd.Consumer]
		delete(c.consumers, cmd.Consumer)
		c.mu.Unlock()
		if entry != nil && entry.ch != nil {
			entry.ch.Close()
		}
		reply(cmd.ID, nil)
	case "ensure":
		go c.ensure(cmd)
	case "recover":
		go c.recover(cmd)
	case "destroy":
		c.mu.Lock()
		if c.socket != nil {
			c.socket.Close()
		}
		c.mu.Unlock()
		reply(cmd.ID, nil)
	default:
		failure(cmd.ID, "invalid", "unknown command "+cmd.Op, "", "")
	}
}

// runPublisher runs one publisher's commands in order; a confirm is awaited beside the next publishes.
func (c *client) runPublisher(entry *publisher) {
	for cmd := range entry.queue {
		switch cmd.Op {
		case "publish_run":
			c.publishRun(cmd)
		case "flush":
			c.flush(cmd)
		default:
			c.publishOne(cmd)
		}
	}
}

// publishOne publishes in order; with confirms, the wait for the broker's word runs beside the next
// publishes, through the tracker (NotifyPublish: amqp091_confirms.go says why not the deferred API).
func (c *client) publishOne(cmd command) {
	settled, code, text, kind := c.publishTracked(cmd.Publisher, cmd.Exchange, cmd.RoutingKey, cmd.Body, cmd.Persistent)
	if code != "" || settled == nil {
		c.settle(cmd.ID, code, text, kind)
		return
	}
	go func() {
		code, text, kind := c.outcomeOf(<-settled)
		c.settle(cmd.ID, code, text, kind)
	}()
}

// reopen runs `open` now when the connection is up; otherwise the next connection opens it.
func (c *client) reopen(open func() error) error {
	c.mu.Lock()
	up := c.up
	c.mu.Unlock()
	if !up {
		return nil
	}
	return open()
}

func (c *client) answer(id int, err error) {
	if err != nil {
		failure(id, "fault", err.Error(), classify(err), nowNs())
		return
	}
	reply(id, nil)
}

func (c *client) settle(id int, code, text, kind string) {
	switch code {
	case "":
		reply(id, nil)
	case "fault":
		failure(id, "fault", text, kind, nowNs())
	default:
		failure(id, code, text, "", "")
	}
}

func (c *client) connect(cmd command) {
	c.profile = profiles[cmd.Profile]
	c.backoff = cmd.HarnessBackoff
	c.urls = cmd.URLs
	c.name = cmd.ConnectionName
	deadline := time.Now().Add(time.Duration(cmd.StartBoundMs) * time.Millisecond)
	var last error
	for time.Now().Before(deadline) {
		if last = c.open(0); last == nil {
			reply(cmd.ID, map[string]interface{}{"localPort": c.localPort(), "atNs": nowNs()})
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	failure(cmd.ID, "timeout", fmt.Sprintf("first connection failed: %v", last), "", "")
}

func (c *client) ack(cmd command) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, tag := range cmd.Tags {
		ref, ok := c.tags[tag]
		delete(c.tags, tag)
		if !ok || ref.generation != c.generation || !c.up {
			continue // a delivery of a channel that is gone: the broker requeued it
		}
		if cmd.Op == "nack" {
			ref.ch.Nack(ref.tag, false, cmd.Requeue)
		} else {
			ref.ch.Ack(ref.tag, cmd.Multiple)
		}
	}
}

// close closes the library's connection within the bound, then cuts the socket (hitBound) and exits.
func (c *client) close(cmd command) {
	bound := time.Duration(cmd.BoundMs) * time.Millisecond
	c.mu.Lock()
	conn, socket := c.conn, c.socket
	c.mu.Unlock()
	hit := false
	if conn != nil && !conn.IsClosed() {
		done := make(chan struct{})
		go func() {
			conn.Close()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(bound):
			hit = true
			if socket != nil {
				socket.Close()
			}
		}
	}
	if cmd.ID > 0 {
		reply(cmd.ID, map[string]interface{}{"hitBound": hit})
	}
	os.Exit(0)
}
