package events

import (
	"context"
	"encoding/json"
	"fmt"
)

// Mode is how a tracking failure is handled (the spec's
// errorHandling.mode).
type Mode string

// The error modes.
const (
	// ModeToast (the default) lets the change commit without its event and
	// logs the failure; with kit.Config.Dev on it also tells the caller
	// through the X-Kit-Event-Warning response header. In production it is
	// ModeSilent.
	ModeToast Mode = "toast"
	// ModeSilent lets the change commit without its event and logs the
	// failure (unless ErrorHandling.NoConsoleLog).
	ModeSilent Mode = "silent"
	// ModeThrow fails the mutation: the change is rolled back with its
	// event and the request answers 500. No change is ever committed
	// without its event.
	ModeThrow Mode = "throw"
)

// WarningHeader is the response header ModeToast sets, in development
// (kit.Config.Dev), on a request whose change committed without its event.
const WarningHeader = "X-Kit-Event-Warning"

// The spec's defaults (public.kitEvents).
const (
	DefaultRetentionDays = 90
	DefaultMaxEvents     = 100000
)

// Config configures the add-on. It mirrors the spec's runtime config
// public.kitEvents, and its zero value is that config's defaults: tracking
// on, user names snapshotted, ModeToast with console logging, retention on
// with 90 days and at most 100000 events.
//
// Go bools default to false, so each switch whose spec default is true is
// named for turning it off (Disabled for enabled, NoUserNameSnapshot for
// snapshotUserName, ...): events.Config{} is the default configuration and
// a field set alone never flips an unrelated one. In JSON a Config reads
// and writes the spec's own shape and keys, with the spec's defaults for
// keys left out:
//
//	{"enabled": true, "snapshotUserName": true,
//	 "errorHandling": {"mode": "toast", "logToConsole": true},
//	 "retention": {"enabled": true, "days": 90, "maxEvents": 100000}}
type Config struct {
	// Disabled turns tracking off (enabled: false): Install registers no
	// mutation listener at all, so mutations cost nothing extra, and
	// manual tracking writes nothing. The event table and the read
	// endpoints stay, so the history recorded so far can still be read.
	Disabled bool
	// NoUserNameSnapshot stores events with an empty userName
	// (snapshotUserName: false). By default the acting user's name at
	// event time is stored with the event; enrichUserData on the list
	// endpoint adds the current one.
	NoUserNameSnapshot bool
	// ErrorHandling says what a tracking failure does.
	ErrorHandling ErrorHandling
	// Retention bounds how many events are kept.
	Retention Retention
}

// ErrorHandling is the spec's errorHandling.
type ErrorHandling struct {
	// Mode is ModeToast (the default when empty), ModeSilent or ModeThrow.
	Mode Mode
	// NoConsoleLog stops logging tracking failures to kit's logger
	// (logToConsole: false). The health record counts them either way.
	NoConsoleLog bool
}

// Retention is the spec's retention: what CleanupOldEvents deletes when
// its options leave a value unset, and whether StartRetention runs.
type Retention struct {
	// Disabled stops StartRetention from running cleanups (enabled:
	// false). CleanupOldEvents still works when called.
	Disabled bool
	// Days keeps events younger than this many days. 0 means
	// DefaultRetentionDays (90); a negative value keeps events of any age.
	Days int
	// MaxEvents keeps at most this many events (the newest). 0 means
	// DefaultMaxEvents (100000); a negative value sets no limit.
	MaxEvents int
	// Lock, when set, runs each cleanup of StartRetention: it should call
	// cleanup only if this instance wins a cluster-wide lock (on
	// PostgreSQL, pg_try_advisory_lock on a connection held for the
	// duration) and return nil without calling it otherwise, so that
	// several instances sharing one database clean up once. Nil claims
	// each period with kit.ClaimPeriod, so across every instance sharing
	// the database one cleanup runs per StartRetention interval.
	Lock func(ctx context.Context, cleanup func(context.Context) error) error
}

// mode returns the effective error mode.
func (c Config) mode() Mode {
	if c.ErrorHandling.Mode == "" {
		return ModeToast
	}
	return c.ErrorHandling.Mode
}

// days returns the effective retention days: -1 for no age limit.
func (r Retention) days() int {
	switch {
	case r.Days == 0:
		return DefaultRetentionDays
	case r.Days < 0:
		return -1
	}
	return r.Days
}

// maxEvents returns the effective count limit: -1 for none.
func (r Retention) maxEvents() int {
	switch {
	case r.MaxEvents == 0:
		return DefaultMaxEvents
	case r.MaxEvents < 0:
		return -1
	}
	return r.MaxEvents
}

// validate reports a Config Install cannot run with.
func (c Config) validate() error {
	switch c.mode() {
	case ModeToast, ModeSilent, ModeThrow:
		return nil
	}
	return fmt.Errorf("events: ErrorHandling.Mode %q: must be %q, %q or %q",
		c.ErrorHandling.Mode, ModeToast, ModeSilent, ModeThrow)
}

// kitEvents is the spec's JSON shape of the config.
type kitEvents struct {
	Enabled          *bool `json:"enabled,omitempty"`
	SnapshotUserName *bool `json:"snapshotUserName,omitempty"`
	ErrorHandling    *struct {
		Mode         Mode  `json:"mode,omitempty"`
		LogToConsole *bool `json:"logToConsole,omitempty"`
	} `json:"errorHandling,omitempty"`
	Retention *struct {
		Enabled   *bool `json:"enabled,omitempty"`
		Days      *int  `json:"days,omitempty"`
		MaxEvents *int  `json:"maxEvents,omitempty"`
	} `json:"retention,omitempty"`
}

// MarshalJSON writes the effective configuration in the spec's
// public.kitEvents shape, defaults filled in. A Retention value that sets
// no limit is written as -1.
func (c Config) MarshalJSON() ([]byte, error) {
	type eh struct {
		Mode         Mode `json:"mode"`
		LogToConsole bool `json:"logToConsole"`
	}
	type ret struct {
		Enabled   bool `json:"enabled"`
		Days      int  `json:"days"`
		MaxEvents int  `json:"maxEvents"`
	}
	return json.Marshal(struct {
		Enabled          bool `json:"enabled"`
		SnapshotUserName bool `json:"snapshotUserName"`
		ErrorHandling    eh   `json:"errorHandling"`
		Retention        ret  `json:"retention"`
	}{
		Enabled:          !c.Disabled,
		SnapshotUserName: !c.NoUserNameSnapshot,
		ErrorHandling:    eh{Mode: c.mode(), LogToConsole: !c.ErrorHandling.NoConsoleLog},
		Retention:        ret{Enabled: !c.Retention.Disabled, Days: c.Retention.days(), MaxEvents: c.Retention.maxEvents()},
	})
}

// UnmarshalJSON reads the spec's public.kitEvents shape; keys left out
// keep the spec's defaults. As in Go, a retention days or maxEvents of 0
// means the default and a negative one no limit. Retention.Lock is kept.
func (c *Config) UnmarshalJSON(b []byte) error {
	var in kitEvents
	if err := json.Unmarshal(b, &in); err != nil {
		return fmt.Errorf("events: config: %w", err)
	}
	out := Config{Retention: Retention{Lock: c.Retention.Lock}}
	if in.Enabled != nil {
		out.Disabled = !*in.Enabled
	}
	if in.SnapshotUserName != nil {
		out.NoUserNameSnapshot = !*in.SnapshotUserName
	}
	if eh := in.ErrorHandling; eh != nil {
		out.ErrorHandling.Mode = eh.Mode
		if eh.LogToConsole != nil {
			out.ErrorHandling.NoConsoleLog = !*eh.LogToConsole
		}
	}
	if r := in.Retention; r != nil {
		if r.Enabled != nil {
			out.Retention.Disabled = !*r.Enabled
		}
		if r.Days != nil {
			out.Retention.Days = *r.Days
		}
		if r.MaxEvents != nil {
			out.Retention.MaxEvents = *r.MaxEvents
		}
	}
	if err := out.validate(); err != nil {
		return err
	}
	*c = out
	return nil
}
