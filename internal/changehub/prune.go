package changehub

import (
	"context"
	"time"
)

// StartRetention starts pruning the log every PruneInterval, on a
// goroutine that runs until Close: at each tick, when Sources.ClaimPrune
// (if set) grants this instance the period, Prune runs. Errors are logged.
// Call it once.
func (h *Hub) StartRetention() {
	h.wg.Add(1)
	go h.pruneLoop()
}

// pruneLoop is StartRetention's goroutine.
func (h *Hub) pruneLoop() {
	defer h.wg.Done()
	t := time.NewTicker(h.cfg.PruneInterval)
	defer t.Stop()
	ctx, cancel := h.stopContext()
	defer cancel()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		claimed, err := h.claimPrune(ctx)
		if err == nil && claimed {
			_, err = h.Prune(ctx)
		}
		if err != nil && ctx.Err() == nil {
			h.logger.Error("kit: change log retention", "error", err)
		}
	}
}

// claimPrune reports whether this instance prunes at this tick.
func (h *Hub) claimPrune(ctx context.Context) (bool, error) {
	if h.src.ClaimPrune == nil {
		return true, nil
	}
	return h.src.ClaimPrune(ctx, h.cfg.PruneInterval)
}

// Prune runs retention now: it deletes the changes older than Retention
// and all but the newest MaxRetained, and returns how many it deleted.
func (h *Hub) Prune(ctx context.Context) (int64, error) {
	return h.src.Log.PruneChanges(ctx, time.Now().Add(-h.cfg.Retention), h.cfg.MaxRetained)
}
