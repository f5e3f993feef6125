@testable import AFTransport
import Foundation

/// libFuzzer target: any bytes as a sequence of events fed to the transfer's state machine (a
/// hostile server, racing cancels, late or repeated interceptor answers), checking after each
/// that the task completes at most once, ends only by a completion or a stop, and that nothing
/// reaches the client after the end. A violation traps, which libFuzzer reports.
private struct Failure: Error {
    var name: String
}

private typealias Machine = TransferStateMachine<String, Int, Failure, Int>

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTransferState(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    guard let first = bytes.first else { return 0 }
    var machine = Machine(hasInterceptors: first & 1 == 1, maximumHeldBodyLength: Int(first >> 1))
    var completions = 0
    var stops = 0
    for byte in bytes.dropFirst() {
        let action: Machine.Action
        switch byte % 19 {
        case 0: action = machine.start()
        case 1: action = machine.adapted(failure: nil)
        case 2: action = machine.adapted(failure: Failure(name: "adapt"))
        case 3: machine.redirected(to: "redirect"); action = .none
        case 4: machine.authenticated(with: "credential"); action = .none
        case 5: _ = machine.receivedFinalResponse(200, isError: false); action = .none
        case 6: _ = machine.receivedFinalResponse(500, isError: true); action = .none
        case 7:
            let chunk = Data(count: Int(byte >> 3))
            if machine.bodyDestination == .held { _ = chunk.withUnsafeBytes { machine.hold($0) } }
            action = .none
        case 8: action = machine.hopFinished(failure: nil, closedInHead: Failure(name: "closed"), canContinue: false)
        case 9:
            action = machine.hopFinished(failure: Failure(name: "cut"), closedInHead: Failure(name: "closed"), canContinue: byte & 0x80 != 0,
                                         endsTask: byte & 0x40 != 0)
        case 10: action = machine.attemptFailed(Failure(name: "idle"))
        case 11: action = machine.decided(.retry(after: 0))
        case 12: action = machine.decided(.conclude)
        case 13: action = machine.decided(.fail(Failure(name: "decided")))
        case 14: action = machine.retryTimerFired()
        case 15: action = machine.failed(Failure(name: "outside"))
        case 16: action = machine.cancelled()
        case 17: _ = machine.began(Int(byte)); action = .none
        default: action = .none
        }
        switch action {
        case .finish, .fail, .conclude, .reject: completions += 1
        case .stop: stops += 1
        case .none, .adapt, .startHop, .decide, .scheduleRetry: break
        }
        precondition(completions <= 1, "a second completion")
        precondition(machine.isEnded == (completions + stops > 0), "ended without a completion or a stop, or the reverse")
        if machine.isEnded {
            precondition(machine.bodyDestination == .discarded && !machine.isDelivering, "the client is reached after the end")
        }
    }
    return 0
}
