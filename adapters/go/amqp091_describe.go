// What the program says of itself (`--describe`): the library, its version and location, its
// settings per profile, and its words on confirms at this version.
package main

import (
	"runtime"
	"strconv"
	"strings"
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

// confirmsWords says how publishes are confirmed on each path, and how a library version that loses
// confirms on the deferred API loses them (the reason the other paths track them through NotifyPublish).
func confirmsWords(version string) string {
	words := "publish_run (the publish throughput suite's): PublishWithDeferredConfirmWithContext, each awaited (Wait); " +
		"every other confirmed publish (fault matrix, realistic, recovery, the adapter contract): Channel.NotifyPublish, " +
		"each publish's delivery tag (GetNextPublishSeqNo) registered before it is written, its ack or nack taken from the listener " +
		"(one per tag, in tag order: confirms.go:52-57, 75-100), and a publish still pending when the library closes the listener " +
		"(its channel or connection closed, channel.go:147-149) settled as a fault with the close's reason"
	if versionBefore(version, []int{1, 8, 0}) {
		words += "; before 1.8.0 the deferred API registers a publish's delivery tag after writing it (1.5.0: channel.go:1438, then :1464), so an ack that comes back in between is dropped (confirms.go:141-147) and Wait never returns (rabbitmq/amqp091-go#182, fixed in 1.8.0): publish_run measures and reports that, NotifyPublish loses none"
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
