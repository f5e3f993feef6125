#if Tracing
import AFLocking
import InMemoryTracing
import Tracing

/// An in-memory tracer with W3C identifiers (32 and 16 hexadecimal digits, counting up) that
/// injects a span's context as W3C's `traceparent`, as an OpenTelemetry tracer would.
struct TraceparentTracer: Tracer {
    let memory: InMemoryTracer

    init() {
        let traces = Locked(0)
        let spans = Locked(0)
        memory = InMemoryTracer(idGenerator: .init(
            nextTraceID: { Self.hex(traces.withLock { $0 += 1; return $0 }, digits: 32) },
            nextSpanID: { Self.hex(spans.withLock { $0 += 1; return $0 }, digits: 16) }))
    }

    private static func hex(_ value: Int, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: digits - text.count) + text
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind, at instant: @autoclosure () -> Instant,
        function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        memory.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}
}
#endif
