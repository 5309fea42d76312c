package kit

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"
)

// Presence: who else has a collection, or one of its records, open. Each
// open view is a stream (presence_http.go) registered here, in memory,
// under its team and collection; a view learns of the others of the same
// team and collection only. See docs/realtime.md.

// PresenceConfig configures the presence channel, GET
// {prefix}/teams/{team}/kit-presence (see [PresenceEvent]). The zero value
// is the documented defaults, with the channel on.
type PresenceConfig struct {
	// Disabled turns the presence channel off: the route answers 404.
	Disabled bool
	// Heartbeat is the interval of the comment lines that keep proxies
	// from closing an idle stream. Default 15 s.
	Heartbeat time.Duration
	// AuthCheckInterval is how often an open presence stream checks that
	// its caller is still allowed, as the change stream does: with kit's
	// own accounts store one read of the authorization counter per
	// instance while it has presence streams, and a full check of every
	// stream only when the counter moved; with a host Directory a full
	// check of every stream. Default 250 ms.
	AuthCheckInterval time.Duration
	// MaxPerUser bounds the presence streams one user holds open in one
	// team on one instance (tabs, windows); one more is refused with 429.
	// Default 32.
	MaxPerUser int
}

func (c PresenceConfig) withDefaults() PresenceConfig {
	if c.Heartbeat <= 0 {
		c.Heartbeat = 15 * time.Second
	}
	if c.AuthCheckInterval <= 0 {
		c.AuthCheckInterval = 250 * time.Millisecond
	}
	if c.MaxPerUser <= 0 {
		c.MaxPerUser = 32
	}
	return c
}

// PresenceEvent is the data of a presence stream's `presence` event: the
// other users of the team who have the collection open now. It is sent
// when the stream opens and again whenever that set changes.
type PresenceEvent struct {
	// Collection is the registry key of the collection.
	Collection string `json:"collection"`
	// Viewers are the other users, oldest view first; never the caller,
	// never a user of another team. Empty, not null, when nobody else is.
	Viewers []PresenceViewer `json:"viewers"`
}

// PresenceViewer is one other user who has the collection open.
type PresenceViewer struct {
	UserID string `json:"userId"`
	// Name is the user's display name in the Directory.
	Name string `json:"name"`
	// Items are the ids of the collection's records the user has open,
	// sorted; empty when the user has only the collection open.
	Items []string `json:"items"`
	// Since is when the user's oldest open view of the collection began,
	// in Unix milliseconds.
	Since int64 `json:"since"`
}

// presenceKey is where a view is: a team and a collection.
type presenceKey struct{ team, collection string }

// presenceView is one open presence stream.
type presenceView struct {
	key    presenceKey
	userID string
	name   string
	item   string // "" when only the collection is open
	since  time.Time
	// changed holds a signal when the views of key changed since the
	// stream last read them; one pending signal stands for any number of
	// changes.
	changed chan struct{}
	// checkedAt is the authorization counter as the stream read it before
	// its caller's check (checked false: unread), the poll's starting
	// point when this view starts it.
	checkedAt int64
	checked   bool
}

// presenceRegistry holds a Kit's open views. The zero value is not
// usable; see newPresenceRegistry.
type presenceRegistry struct {
	cfg PresenceConfig
	// version reads kit's authorization counter; nil with a host
	// Directory (each stream then checks its caller on a timer).
	version func(context.Context) (int64, bool)

	mu      sync.Mutex
	groups  map[presenceKey]map[*presenceView]struct{}
	perUser map[[2]string]int // (team, user) -> open views
	count   int
	// closing is closed by closeAll: every stream open then ends.
	closing chan struct{}
	// authCh is closed when the authorization counter moved.
	authCh  chan struct{}
	polling bool
}

func newPresenceRegistry(cfg PresenceConfig, version func(context.Context) (int64, bool)) *presenceRegistry {
	return &presenceRegistry{
		cfg:     cfg.withDefaults(),
		version: version,
		groups:  map[presenceKey]map[*presenceView]struct{}{},
		perUser: map[[2]string]int{},
		closing: make(chan struct{}),
		authCh:  make(chan struct{}),
	}
}

// join registers v and tells the other views of its team and collection.
// It returns false, registering nothing, when v's user already holds
// MaxPerUser views in the team.
func (p *presenceRegistry) join(v *presenceView) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	u := [2]string{v.key.team, v.userID}
	if p.perUser[u] >= p.cfg.MaxPerUser {
		return false
	}
	p.perUser[u]++
	g := p.groups[v.key]
	if g == nil {
		g = map[*presenceView]struct{}{}
		p.groups[v.key] = g
	}
	g[v] = struct{}{}
	p.count++
	p.notify(v.key, v)
	if p.version != nil && !p.polling {
		p.polling = true
		go p.poll(v.checkedAt, v.checked)
	}
	return true
}

// leave removes v and tells the other views of its team and collection.
func (p *presenceRegistry) leave(v *presenceView) {
	p.mu.Lock()
	defer p.mu.Unlock()
	g := p.groups[v.key]
	if _, ok := g[v]; !ok {
		return
	}
	delete(g, v)
	if len(g) == 0 {
		delete(p.groups, v.key)
	}
	u := [2]string{v.key.team, v.userID}
	if p.perUser[u]--; p.perUser[u] <= 0 {
		delete(p.perUser, u)
	}
	p.count--
	p.notify(v.key, v)
}

// notify signals every view of key but skip. Called with p.mu held.
func (p *presenceRegistry) notify(key presenceKey, skip *presenceView) {
	for o := range p.groups[key] {
		if o == skip {
			continue
		}
		select {
		case o.changed <- struct{}{}:
		default: // a signal is pending already
		}
	}
}

// event is what v sees now: the other users at its team and collection,
// one entry per user, oldest view first.
func (p *presenceRegistry) event(v *presenceView) PresenceEvent {
	p.mu.Lock()
	byUser := map[string]*PresenceViewer{}
	// first is each user's oldest view at full precision: views opened
	// in the same millisecond still come in the order they opened.
	first := map[string]time.Time{}
	for o := range p.groups[v.key] {
		if o.userID == v.userID {
			continue
		}
		pv := byUser[o.userID]
		if pv == nil {
			pv = &PresenceViewer{UserID: o.userID, Name: o.name, Items: []string{}}
			byUser[o.userID] = pv
			first[o.userID] = o.since
		}
		if o.since.Before(first[o.userID]) {
			first[o.userID] = o.since
		}
		if o.item != "" && !slices.Contains(pv.Items, o.item) {
			pv.Items = append(pv.Items, o.item)
		}
	}
	p.mu.Unlock()
	out := PresenceEvent{Collection: v.key.collection, Viewers: make([]PresenceViewer, 0, len(byUser))}
	for _, pv := range byUser {
		slices.Sort(pv.Items)
		pv.Since = first[pv.UserID].UnixMilli()
		out.Viewers = append(out.Viewers, *pv)
	}
	slices.SortFunc(out.Viewers, func(a, b PresenceViewer) int {
		return cmp.Or(first[a.UserID].Compare(first[b.UserID]), cmp.Compare(a.Name, b.Name), cmp.Compare(a.UserID, b.UserID))
	})
	return out
}

// closed returns the channel closeAll closes.
func (p *presenceRegistry) closed() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closing
}

// closeAll ends every open presence stream; streams opened later stay open.
func (p *presenceRegistry) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.closing)
	p.closing = make(chan struct{})
}

// authChanged returns the channel closed at the next move of the
// authorization counter. Take it before checking a caller, so that a move
// after the check is not missed.
func (p *presenceRegistry) authChanged() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.authCh
}

// poll reads the authorization counter every AuthCheckInterval while
// there are views, and closes authCh when it moved: one read per instance,
// however many streams are open. It starts from the counter as the view
// that started it read it before its caller's check (last; known false:
// unread), so that a move between that check and the poll's first read
// is not missed: the views that were open before it started took authCh
// before their checks, and an earlier poll closed it at any move it saw.
func (p *presenceRegistry) poll(last int64, known bool) {
	t := time.NewTicker(p.cfg.AuthCheckInterval)
	defer t.Stop()
	for range t.C {
		p.mu.Lock()
		if p.count == 0 {
			p.polling = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), p.cfg.AuthCheckInterval*4)
		v, ok := p.version(ctx)
		cancel()
		// An unreadable counter counts as a move: every stream checks in full.
		if !ok || !known || v != last {
			last, known = v, ok
			p.mu.Lock()
			close(p.authCh)
			p.authCh = make(chan struct{})
			p.mu.Unlock()
		}
	}
}

// ClosePresence ends every open presence stream (see [PresenceConfig]);
// clients reconnect. Register it for http.Server.Shutdown next to
// [Kit.CloseStreams]: srv.RegisterOnShutdown(k.ClosePresence). Close calls
// it too.
func (k *Kit) ClosePresence() { k.presence.closeAll() }

// presenceVersion is how the presence registry reads kit's authorization
// counter: nil with a host Directory, whose answers it cannot watch.
func (k *Kit) presenceVersion() func(context.Context) (int64, bool) {
	if k.cfg.Directory != k.auth {
		return nil
	}
	return k.auth.AuthVersion
}
