#include "DispatchBridge.h"

// libdispatch is always loaded with Foundation; its C header is not on the C include path.
extern void *dispatch_get_current_queue(void);
extern void dispatch_retain(void *object);
extern void dispatch_release(void *object);
extern void dispatch_async_f(void *queue, void *context, void (*work)(void *));

void *afn_dispatch_current_queue(void) {
    void *queue = dispatch_get_current_queue();
    dispatch_retain(queue);
    return queue;
}

void afn_dispatch_release(void *queue) { dispatch_release(queue); }

void afn_dispatch_async(void *queue, void *context, void (*work)(void *)) { dispatch_async_f(queue, context, work); }
