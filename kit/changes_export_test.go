package kit

import "time"

// StreamWriteTime is the time k's change streams have spent writing
// deliveries, which the hub's fan-out budget (FanoutShare) counts.
func StreamWriteTime(k *Kit) time.Duration { return k.hub.WriteTime() }

// LastDeliveryInterval is the interval the hub chose after its latest
// delivery; 0 before the first.
func LastDeliveryInterval(k *Kit) time.Duration { return k.hub.DeliveryInterval() }
