// The libdispatch calls the transport needs to call URLSession's client on URLSession's own
// queue, which Swift's Dispatch overlay does not offer: the queue the caller runs on, kept, and
// work posted to it without a block object. libdispatch is always loaded with Foundation.
#ifndef AFN_DISPATCH_BRIDGE_H
#define AFN_DISPATCH_BRIDGE_H

/// The queue the caller runs on, retained.
void *afn_dispatch_current_queue(void);
void afn_dispatch_release(void *queue);
/// Runs `work(context)` on `queue`, without waiting for it.
void afn_dispatch_async(void *queue, void *context, void (*work)(void *context));

#endif
