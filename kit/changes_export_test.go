package kit

import "time"

// StreamWriteTime is the time k's change streams have spent writing
// deliveries, which the hub's fan-out budget (FanoutShare) counts.
func StreamWriteTime(k *Kit) time.Duration { return time.Duration(k.hub.written.Load()) }
