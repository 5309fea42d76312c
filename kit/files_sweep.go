package kit

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/collectionkit/kit/collections"
	"github.com/collectionkit/kit/internal/files"
	"github.com/collectionkit/kit/internal/store"
)

// fileSweepJob names the sweep's once-per-period claim.
const fileSweepJob = "kit:files-sweep"

// startFileSweep runs SweepFiles every Files.SweepInterval on the one
// instance that claims the period.
func (k *Kit) startFileSweep() {
	interval := k.files.cfg.SweepInterval
	if interval == 0 {
		interval = time.Hour
	}
	if interval < 0 {
		return
	}
	k.every(fileSweepJob, interval, func(ctx context.Context) {
		if n, err := k.SweepFiles(ctx, k.sweepGrace()); err != nil {
			k.logger.Warn("kit: file sweep", "err", err, "removed", n)
		} else if n > 0 {
			k.logger.Info("kit: file sweep", "removed", n)
		}
	})
}

func (k *Kit) sweepGrace() time.Duration {
	if g := k.files.cfg.SweepGrace; g > 0 {
		return g
	}
	return 24 * time.Hour
}

// SweepFiles removes the blobs of the bucket that no record refers to
// and that are older than grace, with their thumbnails, and returns how
// many it removed. Such blobs are left by a crash between an upload and
// its record's commit, or by a removal that failed after one; grace
// spares the uploads of writes still under way. Blobs of a collection
// the registry does not have, and keys kit did not make, are left alone.
// The periodic sweep (Config.Files.SweepInterval) calls it on one
// instance of the cluster; call it from tools and tests.
func (k *Kit) SweepFiles(ctx context.Context, grace time.Duration) (int, error) {
	cutoff := time.Now().Add(-grace)
	type recKey struct{ team, coll, id string }
	referenced := map[recKey]map[string]bool{} // per record: the keys its fields hold
	removed := 0
	var errs []error
	err := k.files.bucket.Walk(ctx, "", func(info files.Info) error {
		if info.ModTime.After(cutoff) {
			return nil
		}
		parts := strings.SplitN(info.Key, "/", 4)
		if len(parts) != 4 {
			return nil
		}
		c, ok := k.Collections().Get(parts[1])
		if !ok || c.External() {
			return nil
		}
		rk := recKey{parts[0], parts[1], parts[2]}
		refs, seen := referenced[rk]
		if !seen {
			var err error
			if refs, err = k.fileKeysOf(ctx, c, rk.team, rk.id); err != nil {
				errs = append(errs, err)
				return nil
			}
			referenced[rk] = refs
		}
		if refs[originalKey(info.Key)] {
			return nil
		}
		if err := k.files.bucket.Delete(ctx, info.Key); err != nil {
			errs = append(errs, err)
			return nil
		}
		removed++
		return nil
	})
	return removed, errors.Join(append(errs, err)...)
}

// originalKey is the key of the blob a thumbnail was made of
// (t/c/r/thumbs/NAME/WxH is t/c/r/NAME); other keys are their own.
func originalKey(key string) string {
	parts := strings.Split(key, "/")
	if len(parts) == 6 && parts[3] == "thumbs" {
		return strings.Join(append(parts[:3:3], parts[4]), "/")
	}
	return key
}

// fileKeysOf returns the blob keys record id of the team holds in its
// file fields (none when there is no such record).
func (k *Kit) fileKeysOf(ctx context.Context, c *collections.Collection, team, id string) (map[string]bool, error) {
	rec, err := k.store.GetAnyTeam(ctx, k.db, c, id)
	if errors.Is(err, store.ErrNotFound) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	if rec["teamId"] != team {
		return keys, nil
	}
	for _, a := range c.Attributes() {
		if a.Field != nil && a.Type.IsFile() {
			for _, f := range FilesOf(rec, a.Name) {
				keys[f.Key] = true
			}
		}
	}
	return keys, nil
}
