@testable import AFTransport
import Foundation
import XCTest

/// The transfer's lifecycle without a server or libcurl: each event in each phase, and every
/// event sequence up to a length, for exactly one completion (or a stop) on every path.
final class TransferStateMachineTests: XCTestCase {
    private struct Failure: Error, Equatable {
        var name: String
    }

    private typealias Machine = TransferStateMachine<String, Int, Failure, String>

    private let cut = Failure(name: "cut")
    private let closed = Failure(name: "closed in head")

    private func machine(interceptors: Bool = false, heldLimit: Int = 8) -> Machine {
        Machine(hasInterceptors: interceptors, maximumHeldBodyLength: heldLimit)
    }

    /// A machine of a task with interceptors, running attempt 1.
    private func running(interceptors: Bool = true) -> Machine {
        var machine = machine(interceptors: interceptors)
        _ = machine.start()
        if interceptors { _ = machine.adapted(failure: nil) }
        return machine
    }

    private func bytes(_ count: Int) -> Data { Data(repeating: 0x61, count: count) }

    // MARK: One event at a time

    func testWithoutInterceptorsTheFirstHopStartsAtOnce() {
        var machine = machine()
        guard case .startHop(next: nil) = machine.start() else { return XCTFail("\(machine.phase)") }
        XCTAssertTrue(machine.isDelivering)
        XCTAssertEqual(machine.attempt, 1)
    }

    func testWithInterceptorsTheRequestIsAdaptedBeforeTheFirstHop() {
        var machine = machine(interceptors: true)
        guard case .adapt(attempt: 1) = machine.start() else { return XCTFail("\(machine.phase)") }
        XCTAssertFalse(machine.isDelivering)
        guard case .startHop(next: nil) = machine.adapted(failure: nil) else { return XCTFail("\(machine.phase)") }
        XCTAssertTrue(machine.isDelivering)
    }

    func testAnAdaptationThatThrowsFailsTheTask() {
        var machine = machine(interceptors: true)
        _ = machine.start()
        guard case .fail(let error as Failure) = machine.adapted(failure: cut) else { return XCTFail("\(machine.phase)") }
        XCTAssertEqual(error, cut)
        XCTAssertTrue(machine.isEnded)
    }

    func testADeliveredResponseWhoseHopSucceedsFinishes() {
        var machine = running(interceptors: false)
        XCTAssertTrue(machine.receivedFinalResponse(200, isError: false))
        XCTAssertEqual(machine.bodyDestination, .client)
        guard case .finish = machine.hopFinished(failure: nil, closedInHead: closed, canContinue: false) else { return XCTFail() }
        XCTAssertTrue(machine.isEnded)
    }

    func testAHopThatEndsWithoutAFinalResponseFailsAsClosedInTheHead() {
        var machine = running(interceptors: false)
        guard case .fail(let error as Failure) = machine.hopFinished(failure: nil, closedInHead: closed, canContinue: false) else { return XCTFail() }
        XCTAssertEqual(error, closed)
    }

    func testAFailedHopWithoutInterceptorsFailsWithItsError() {
        var machine = running(interceptors: false)
        _ = machine.receivedFinalResponse(200, isError: false)
        guard case .fail(let error as Failure) = machine.hopFinished(failure: cut, closedInHead: closed, canContinue: true) else { return XCTFail() }
        XCTAssertEqual(error, cut)
    }

    func testARedirectDiscardsTheBodyAndStartsTheNextHopWhenTheHopEnds() {
        var machine = running(interceptors: false)
        machine.redirected(to: "next")
        XCTAssertEqual(machine.bodyDestination, .discarded)
        XCTAssertFalse(machine.isDelivering)
        guard case .startHop(next: "next") = machine.hopFinished(failure: nil, closedInHead: closed, canContinue: false) else { return XCTFail() }
        XCTAssertTrue(machine.isDelivering)
        XCTAssertFalse(machine.responseDelivered)
    }

    func testARedirectWhoseHopFailsFailsTheTask() {
        var machine = running(interceptors: false)
        machine.redirected(to: "next")
        guard case .fail = machine.hopFinished(failure: cut, closedInHead: closed, canContinue: false) else { return XCTFail() }
    }

    func testABasicChallengeIsAnsweredOncePerAttempt() {
        var machine = running(interceptors: false)
        machine.authenticated(with: "with credential")
        XCTAssertTrue(machine.authenticationAttempted)
        guard case .startHop(next: "with credential") = machine.hopFinished(failure: nil, closedInHead: closed, canContinue: false) else { return XCTFail() }
        machine.authenticated(with: "again")
        XCTAssertTrue(machine.isDelivering, "a second challenge is the response")
    }

    func testAnErrorResponseIsHeldWithItsBodyUntilTheInterceptorsDecide() {
        var machine = running()
        XCTAssertFalse(machine.receivedFinalResponse(503, isError: true))
        XCTAssertEqual(machine.bodyDestination, .held)
        bytes(5).withUnsafeBytes { XCTAssertNil(machine.hold($0)) }
        guard case .decide(attempt: 1, let outcome) = machine.hopFinished(failure: nil, closedInHead: closed, canContinue: false) else { return XCTFail() }
        XCTAssertEqual(outcome.held?.response, 503)
        XCTAssertEqual(outcome.held?.body, bytes(5))
        XCTAssertNil(outcome.failure)
        XCTAssertFalse(machine.responseDelivered)
    }

    func testAHeldResponsesTrailersAreConcludedWithIt() {
        var machine = running()
        _ = machine.receivedFinalResponse(503, isError: true)
        machine.holdTrailers(["Checksum": "abc"])
        _ = machine.hopFinished(failure: nil, closedInHead: closed, canContinue: false)
        guard case .conclude(let outcome) = machine.decided(.conclude) else { return XCTFail() }
        XCTAssertEqual(outcome.held?.trailers, ["Checksum": "abc"])
    }

    func testAHeldBodyPastItsLimitGoesToTheClientWithItsResponse() {
        var machine = running()
        _ = machine.receivedFinalResponse(500, isError: true)
        bytes(6).withUnsafeBytes { XCTAssertNil(machine.hold($0)) }
        let released = bytes(6).withUnsafeBytes { machine.hold($0) }
        XCTAssertEqual(released?.response, 500)
        XCTAssertEqual(released?.body, bytes(12))
        XCTAssertEqual(machine.bodyDestination, .client)
        XCTAssertTrue(machine.responseDelivered)
        guard case .finish = machine.hopFinished(failure: nil, closedInHead: closed, canContinue: false) else { return XCTFail() }
    }

    func testConcludingAHeldResponseHandsItToTheClient() {
        var machine = running()
        _ = machine.receivedFinalResponse(404, isError: true)
        _ = machine.hopFinished(failure: nil, closedInHead: closed, canContinue: false)
        guard case .conclude(let outcome) = machine.decided(.conclude) else { return XCTFail() }
        XCTAssertEqual(outcome.held?.response, 404)
        XCTAssertTrue(machine.isEnded)
        XCTAssertTrue(machine.responseDelivered)
    }

    func testARetryWaitsThenAdaptsTheNextAttempt() {
        var machine = running()
        guard case .decide(attempt: 1, let outcome) = machine.hopFinished(failure: cut, closedInHead: closed, canContinue: false) else { return XCTFail() }
        XCTAssertEqual(outcome.failure, cut)
        guard case .scheduleRetry(after: 2) = machine.decided(.retry(after: 2)) else { return XCTFail() }
        XCTAssertEqual(machine.attempt, 1)
        guard case .adapt(attempt: 2) = machine.retryTimerFired() else { return XCTFail() }
        XCTAssertEqual(machine.attempt, 2)
        guard case .startHop(next: nil) = machine.adapted(failure: nil) else { return XCTFail() }
    }

    func testARetryStartsTheNextAttemptWithItsOwnBasicRetry() {
        var machine = running()
        machine.authenticated(with: "with credential")
        _ = machine.hopFinished(failure: nil, closedInHead: closed, canContinue: false)
        _ = machine.hopFinished(failure: cut, closedInHead: closed, canContinue: false)
        _ = machine.decided(.retry(after: 0))
        _ = machine.retryTimerFired()
        _ = machine.adapted(failure: nil)
        XCTAssertFalse(machine.authenticationAttempted)
    }

    func testTheInterceptorsMayFailTheTask() {
        var machine = running()
        _ = machine.hopFinished(failure: cut, closedInHead: closed, canContinue: false)
        guard case .fail(let error as Failure) = machine.decided(.fail(closed)) else { return XCTFail() }
        XCTAssertEqual(error, closed)
    }

    func testACutBodyThatCanContinueIsPutToTheInterceptors() {
        var machine = running()
        _ = machine.receivedFinalResponse(200, isError: false)
        guard case .decide(_, let outcome) = machine.hopFinished(failure: cut, closedInHead: closed, canContinue: true) else { return XCTFail() }
        XCTAssertNil(outcome.held)
        XCTAssertEqual(outcome.failure, cut)
    }

    func testACutBodyThatCannotContinueFailsTheTask() {
        var machine = running()
        _ = machine.receivedFinalResponse(200, isError: false)
        guard case .fail = machine.hopFinished(failure: cut, closedInHead: closed, canContinue: false) else { return XCTFail() }
    }

    func testAnIdleTimeoutBeforeAResponseIsPutToTheInterceptors() {
        var machine = running()
        guard case .decide(_, let outcome) = machine.attemptFailed(cut) else { return XCTFail() }
        XCTAssertEqual(outcome.failure, cut)
    }

    func testAnIdleTimeoutAfterTheResponseFailsTheTask() {
        var machine = running()
        _ = machine.receivedFinalResponse(200, isError: false)
        guard case .fail = machine.attemptFailed(cut) else { return XCTFail() }
    }

    func testAnIdleTimeoutWhileHoldingKeepsTheHeldResponseForTheInterceptors() {
        var machine = running()
        _ = machine.receivedFinalResponse(429, isError: true)
        guard case .decide(_, let outcome) = machine.attemptFailed(cut) else { return XCTFail() }
        XCTAssertEqual(outcome.held?.response, 429)
        XCTAssertEqual(outcome.failure, cut)
    }

    func testAnOutsideFailureEndsTheTaskOnce() {
        var machine = running()
        guard case .fail = machine.failed(cut) else { return XCTFail() }
        guard case .none = machine.failed(cut) else { return XCTFail() }
    }

    func testCancellingHandsBackTheInterceptorsWorkToCancel() {
        var machine = machine(interceptors: true)
        _ = machine.start()
        XCTAssertTrue(machine.began("adapting"))
        guard case .stop(pending: "adapting") = machine.cancelled() else { return XCTFail("\(machine.phase)") }
    }

    func testCancellingWhileWaitingToRetryHandsBackTheTimerToCancel() {
        var machine = running()
        _ = machine.hopFinished(failure: cut, closedInHead: closed, canContinue: false)
        XCTAssertTrue(machine.began("deciding"))
        _ = machine.decided(.retry(after: 5))
        XCTAssertTrue(machine.began("timer"))
        guard case .stop(pending: "timer") = machine.cancelled() else { return XCTFail("\(machine.phase)") }
    }

    func testWorkBegunWhereNoneIsAwaitedIsRefused() {
        var machine = running()
        XCTAssertFalse(machine.began("stray"))
        guard case .stop(pending: nil) = machine.cancelled() else { return XCTFail("\(machine.phase)") }
    }

    func testACancelledTaskStopsAndIgnoresEverythingAfter() {
        var machine = running()
        guard case .stop = machine.cancelled() else { return XCTFail() }
        XCTAssertTrue(machine.isEnded)
        XCTAssertEqual(machine.bodyDestination, .discarded)
        guard case .none = machine.hopFinished(failure: nil, closedInHead: closed, canContinue: false) else { return XCTFail() }
        guard case .none = machine.decided(.conclude) else { return XCTFail() }
        guard case .none = machine.retryTimerFired() else { return XCTFail() }
        guard case .none = machine.adapted(failure: nil) else { return XCTFail() }
    }

    func testAHopFailureThatEndsTheTaskIsNotPutToTheInterceptors() {
        var holding = running()
        _ = holding.receivedFinalResponse(503, isError: true)
        guard case .fail(let failure) = holding.hopFinished(failure: cut, closedInHead: closed, canContinue: true, endsTask: true) else {
            return XCTFail("\(holding.phase)")
        }
        XCTAssertEqual(failure as? Failure, cut)
        var delivering = running()
        _ = delivering.receivedFinalResponse(200, isError: false)
        guard case .fail = delivering.hopFinished(failure: cut, closedInHead: closed, canContinue: true, endsTask: true) else {
            return XCTFail("\(delivering.phase)")
        }
    }

    // MARK: Events a phase cannot receive

    func testAnEventThePhaseCannotReceiveIsRejectedWithTheEventAndThePhase() {
        var machine = running()
        guard case .reject(let error, pending: nil) = machine.decided(.conclude) else { return XCTFail("\(machine.phase)") }
        XCTAssertEqual(error, TransferStateError(event: "decided", phase: "running"))
        XCTAssertTrue(machine.isEnded)
        XCTAssertEqual(machine.bodyDestination, .discarded)
    }

    func testARejectedEventHandsBackThePhasesPendingWorkToCancel() {
        var machine = machine(interceptors: true)
        _ = machine.start()
        XCTAssertTrue(machine.began("adapting"))
        guard case .reject(let error, pending: "adapting") = machine.retryTimerFired() else { return XCTFail("\(machine.phase)") }
        XCTAssertEqual(error, TransferStateError(event: "retryTimerFired", phase: "adapting"))
    }

    func testEachEventTheTransferSequencesIsRejectedOutsideItsPhase() {
        var started = running()
        guard case .reject(let start, _) = started.start() else { return XCTFail() }
        XCTAssertEqual(start, TransferStateError(event: "start", phase: "running"))
        var adapted = running()
        guard case .reject(let adapt, _) = adapted.adapted(failure: nil) else { return XCTFail() }
        XCTAssertEqual(adapt, TransferStateError(event: "adapted", phase: "running"))
        var deciding = running()
        _ = deciding.hopFinished(failure: cut, closedInHead: closed, canContinue: false)
        guard case .reject(let hop, _) = deciding.hopFinished(failure: nil, closedInHead: closed, canContinue: false) else { return XCTFail() }
        XCTAssertEqual(hop, TransferStateError(event: "hopFinished", phase: "deciding"))
        var waiting = running()
        _ = waiting.hopFinished(failure: cut, closedInHead: closed, canContinue: false)
        _ = waiting.decided(.retry(after: 1))
        guard case .reject(let idle, _) = waiting.attemptFailed(cut) else { return XCTFail() }
        XCTAssertEqual(idle, TransferStateError(event: "attemptFailed", phase: "waitingToRetry"))
    }

    func testAnEventAfterTheEndIsLateNotRejected() {
        var machine = running()
        _ = machine.failed(cut)
        guard case .none = machine.start() else { return XCTFail() }
        guard case .none = machine.attemptFailed(cut) else { return XCTFail() }
        guard case .none = machine.decided(.fail(cut)) else { return XCTFail() }
    }

    // MARK: Every event in every phase

    /// The events a transfer can receive, in any order (a hostile server, a racing cancel, a
    /// late interceptor).
    private enum Event: CaseIterable {
        case start, adapted, adaptFailed, redirected, authenticated, finalResponse, errorResponse, body, hopSucceeded, hopFailed,
             hopFailedContinuable, hopFailedEndingTheTask, attemptFailed, retry, conclude, decideFail, retryTimer, failed, cancelled, work
    }

    private struct Run {
        var machine: Machine
        var completions = 0
        var stops = 0
        var path: [Event] = []

        mutating func apply(_ event: Event) {
            let action: Machine.Action
            switch event {
            case .start: action = machine.start()
            case .adapted: action = machine.adapted(failure: nil)
            case .adaptFailed: action = machine.adapted(failure: Failure(name: "adapt"))
            case .work: _ = machine.began("work"); action = .none
            case .redirected: machine.redirected(to: "r"); action = .none
            case .authenticated: machine.authenticated(with: "a"); action = .none
            case .finalResponse: _ = machine.receivedFinalResponse(200, isError: false); action = .none
            case .errorResponse: _ = machine.receivedFinalResponse(500, isError: true); action = .none
            case .body:
                if machine.bodyDestination == .held { _ = Data(count: 5).withUnsafeBytes { machine.hold($0) } }
                action = .none
            case .hopSucceeded: action = machine.hopFinished(failure: nil, closedInHead: Failure(name: "closed"), canContinue: false)
            case .hopFailed: action = machine.hopFinished(failure: Failure(name: "cut"), closedInHead: Failure(name: "closed"), canContinue: false)
            case .hopFailedContinuable:
                action = machine.hopFinished(failure: Failure(name: "cut"), closedInHead: Failure(name: "closed"), canContinue: true)
            case .hopFailedEndingTheTask:
                action = machine.hopFinished(failure: Failure(name: "cut"), closedInHead: Failure(name: "closed"), canContinue: true, endsTask: true)
            case .attemptFailed: action = machine.attemptFailed(Failure(name: "idle"))
            case .retry: action = machine.decided(.retry(after: 0))
            case .conclude: action = machine.decided(.conclude)
            case .decideFail: action = machine.decided(.fail(Failure(name: "decided")))
            case .retryTimer: action = machine.retryTimerFired()
            case .failed: action = machine.failed(Failure(name: "outside"))
            case .cancelled: action = machine.cancelled()
            }
            switch action {
            case .finish, .fail, .conclude, .reject: completions += 1
            case .stop: stops += 1
            default: break
            }
        }

        /// Exactly one way out once ended, none before; nothing is reported after it.
        func check(file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertLessThanOrEqual(completions, 1, "\(path)", file: file, line: line)
            XCTAssertEqual(machine.isEnded, completions + stops > 0, "\(path)", file: file, line: line)
            if machine.isEnded {
                XCTAssertEqual(machine.bodyDestination, .discarded, "\(path)", file: file, line: line)
                XCTAssertFalse(machine.isDelivering, "\(path)", file: file, line: line)
            }
        }
    }

    func testEveryEventInEveryReachablePhaseCompletesAtMostOnceAndEndsOnlyByACompletionOrAStop() {
        // Breadth first over the states reachable in ten events, each state taken once (by its
        // phase, delivery and counts), every event applied to each.
        for interceptors in [false, true] {
            var frontier = [Run(machine: Machine(hasInterceptors: interceptors, maximumHeldBodyLength: 8))]
            var seen: Set<String> = []
            var phases: Set<String> = []
            for _ in 0..<10 {
                var next: [Run] = []
                for run in frontier {
                    for event in Event.allCases {
                        var after = run
                        after.path.append(event)
                        after.apply(event)
                        after.check()
                        let key = "\(after.machine.phase) \(after.machine.responseDelivered) \(after.completions) \(after.stops)"
                        phases.insert(String("\(after.machine.phase)".prefix { $0 != "(" }))
                        if seen.insert(key).inserted { next.append(after) }
                    }
                }
                frontier = next
            }
            let expected: Set<String> = interceptors
                ? ["initialized", "adapting", "running", "deciding", "waitingToRetry", "ended"] : ["initialized", "running", "ended"]
            XCTAssertEqual(phases.union(["initialized"]), expected)
        }
    }

    func testAWellBehavedEnvironmentAlwaysReachesTheEnd() {
        // Whatever the server and the interceptors answer, a transfer whose hops end and whose
        // interceptors answer (here: always retry, up to three attempts) completes exactly once.
        for interceptors in [false, true] {
            for script in 0..<64 {
                var run = Run(machine: Machine(hasInterceptors: interceptors, maximumHeldBodyLength: 8))
                var step = 0
                while !run.machine.isEnded, step < 40 {
                    let bit = (script >> (step % 6)) & 1 == 1
                    let event: Event = switch run.machine.phase {
                    case .initialized: .start
                    case .adapting: .adapted
                    case .running(_, .delivering) where !run.machine.responseDelivered: bit ? .finalResponse : .errorResponse
                    case .running: bit ? .hopSucceeded : .hopFailed
                    case .deciding: run.machine.attempt < 3 && bit ? .retry : .conclude
                    case .waitingToRetry: .retryTimer
                    case .ended: .cancelled
                    }
                    run.path.append(event)
                    run.apply(event)
                    step += 1
                }
                XCTAssertTrue(run.machine.isEnded, "\(run.path)")
                XCTAssertEqual(run.completions, 1, "\(run.path)")
            }
        }
    }
}
