// The program's main: `--describe`, or the protocol on stdin / stdout until the end of stdin.
// Built by scripts/setup-clients.sh against Debian's golang-github-rabbitmq-amqp091-go-dev (GOPATH
// /usr/share/gocode, nothing downloaded); GOPATH_AMQP091 points it at another copy of the library.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// libraryVersion is the amqp091-go version built against, set by the build (-ldflags -X).
var libraryVersion = "unknown"

// libraryLocation is the folder of the library source built against, set by the build.
var libraryLocation = ""

func describe() map[string]interface{} {
	settings := func(p profile) map[string]interface{} {
		return map[string]interface{}{
			"recovery":           "the harness's loop in this program (amqp091-go has none by design): new connections with the harness backoff, every URL in turn, then every channel and consumer re-opened",
			"heartbeat":          p.heartbeat.Seconds(),
			"connection_timeout": p.connectTimeout.Seconds(),
			"TCP_NODELAY":        "on (Go's net default)",
			"confirms":           confirmsWords(libraryVersion),
		}
	}
	description := map[string]interface{}{
		"protocol": protocolVersion, "name": "amqp091-go", "library": "github.com/rabbitmq/amqp091-go", "version": libraryVersion,
		"language": "go", "runtime": runtime.Version(), "recovery": "harness", "multipleHosts": true,
		"signals": map[string]string{
			"channel_closed":     "Channel.NotifyClose with the broker's error (403-406), the connection staying up; the library does not re-open the channel",
			"consumer_cancelled": "Channel.NotifyCancel (basic.cancel from the broker); the library does not consume again",
			"blocked":            "Connection.NotifyBlocked (Active: true, with the reason); PublishWithContext blocks while blocked (rabbitmq/amqp091-go#111)",
			"unblocked":          "Connection.NotifyBlocked (Active: false)",
		},
		"silenceCheck": "no heartbeat check on a timer: a read deadline. With a heartbeat of H it sends a heartbeat every H/2 while it writes nothing (connection.go:615-645, started with H/2 at :867), and after every frame it reads sets the socket's read deadline to 3 x H/2 = 1.5 H (connection.go:601-609, 616, 647-658); the first read past it fails (i/o timeout) and closes the connection. So it gives up 1.5 intervals after the last frame it read, whatever the phase: earlier than the protocol's two",
		"acks":         map[string]bool{"multiple": true, "nack": true},
		"profiles":     []string{"defaults", "normalised"},
		"settings":     map[string]interface{}{"defaults": settings(profiles["defaults"]), "normalised": settings(profiles["normalised"])},
	}
	if libraryLocation != "" {
		description["location"] = libraryLocation
	}
	return description
}

// confirmsWords says how publishes are confirmed, and how a library version that loses confirms loses them.
func confirmsWords(version string) string {
	words := "PublishWithDeferredConfirmWithContext, each awaited (Wait)"
	if versionBefore(version, []int{1, 8, 0}) {
		words += "; before 1.8.0 the library registers a publish's delivery tag after writing it (1.5.0: channel.go:1438, then :1464), so an ack that comes back in between is dropped (confirms.go:141-147) and Wait never returns (rabbitmq/amqp091-go#182, fixed in 1.8.0)"
	}
	return words
}

// versionBefore: `version` (`1.5.0`, `v1.7.1-3-gabc`) is a release older than `than`; false when it reads as no version.
func versionBefore(version string, than []int) bool {
	fields := strings.FieldsFunc(strings.TrimPrefix(version, "v"), func(r rune) bool { return r == '.' || r == '-' || r == '+' || r == '~' })
	for i, want := range than {
		if i >= len(fields) {
			return false
		}
		got, err := strconv.Atoi(fields[i])
		if err != nil {
			return false
		}
		if got != want {
			return got < want
		}
	}
	return false
}

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
			c.publishOne(entry, cmd)
		}
	}
}

// publishOne publishes in order; with confirms, the wait for the broker's word runs beside the next publishes.
func (c *client) publishOne(entry *publisher, cmd command) {
	if !entry.confirms {
		code, text, kind := c.publish(cmd.Publisher, cmd.Exchange, cmd.RoutingKey, cmd.Body, cmd.Persistent, 0)
		c.settle(cmd.ID, code, text, kind)
		return
	}
	ch, confirmation, code, text, kind := c.publishDeferred(cmd)
	if code != "" {
		c.settle(cmd.ID, code, text, kind)
		return
	}
	go func() {
		code, text, kind := c.awaitConfirm(ch, confirmation)
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

// publishRun publishes `count` messages, each awaited; a confirm not settled within `publishBoundMs`
// (else `boundMs`) ends the run there, as it would leave a thread that awaits it waiting: the run
// names that publish (`unsettledPublish`) and makes no more.
func (c *client) publishRun(cmd command) {
	body := make([]byte, cmd.SizeBytes)
	for i := range body {
		body[i] = 'a'
	}
	bound := cmd.PublishBoundMs
	if bound <= 0 {
		bound = cmd.BoundMs
	}
	histogram := latencyHistogram{}
	published, errorCount, unsettled := 0, 0, 0
	samples := []string{}
	started := nowNs()
	for i := 0; i < cmd.Count; i++ {
		t0 := nanotime()
		code, text, _ := c.publish(cmd.Publisher, cmd.Exchange, cmd.RoutingKey, body, false, time.Duration(bound)*time.Millisecond)
		if code == "unsettled" {
			unsettled = i + 1
			break
		}
		if code != "" {
			errorCount++
			if len(samples) < 5 {
				samples = append(samples, text)
			}
			c.mu.Lock()
			up := c.up
			c.mu.Unlock()
			if !up {
				errorCount += cmd.Count - i - 1
				break
			}
			continue
		}
		histogram.record(nanotime() - t0)
		published++
	}
	run := map[string]interface{}{
		"published": published, "errors": errorCount, "startedNs": started, "completedNs": nowNs(),
		"latencyUs": histogram.encode(), "errorSamples": samples,
	}
	if unsettled > 0 {
		run["unsettledPublish"] = unsettled
	}
	reply(cmd.ID, map[string]interface{}{"run": run})
}

func (c *client) flush(cmd command) {
	entry := c.publishers[cmd.Publisher]
	if entry == nil || entry.ch == nil {
		failure(cmd.ID, "fault", "not connected", "error", nowNs())
		return
	}
	if !entry.confirms {
		// A round trip on the publisher's own channel: the broker has taken what came before it.
		if err := entry.ch.ExchangeDeclarePassive("amq.direct", "direct", true, false, false, false, nil); err != nil {
			failure(cmd.ID, "fault", err.Error(), classify(err), nowNs())
			return
		}
	}
	reply(cmd.ID, nil)
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
