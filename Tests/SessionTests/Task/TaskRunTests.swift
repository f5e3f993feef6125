@testable import AFSession
import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The task's lifecycle as a table, without a manager or a transfer: what each event does in
/// each phase (the action returned and the phase reached), what each phase owns, and the
/// events a phase cannot take rejected.
final class TaskRunTests: XCTestCase {
    private final class Transfer {}
    /// What a live task owns, reduced to something to change and hand over.
    private struct Owned: Equatable { var chunks: [Int] = [] }
    private typealias Run = TaskRun<Transfer, Owned>

    private let transfer = Transfer()

    /// The phases a run reaches, by name, each made by events from a fresh run.
    private enum Reached: String, CaseIterable {
        case created, starting, startingSuspended, running, runningSuspended, cancellingBeforeTransfer, cancelling
        case completing, completed
    }

    private func run(in reached: Reached) -> Run {
        var run = Run(Owned(chunks: [1]))
        switch reached {
        case .created: break
        case .starting: _ = run.resume()
        case .startingSuspended: _ = run.resume(); _ = run.suspend()
        case .running: _ = run.resume(); _ = run.made(transfer)
        case .runningSuspended: _ = run.resume(); _ = run.made(transfer); _ = run.suspend()
        case .cancellingBeforeTransfer: _ = run.cancel()
        case .cancelling: _ = run.resume(); _ = run.made(transfer); _ = run.cancel()
        case .completing: _ = run.resume(); _ = run.made(transfer); _ = run.end()
        case .completed: _ = run.resume(); _ = run.made(transfer); _ = run.end(); _ = run.complete(with: nil)
        }
        return run
    }

    /// A phase as the table names it: the phase, the transfer it holds, and whether suspended.
    private func name(_ run: Run) -> String {
        switch run.phase {
        case .created: "created"
        case .starting(_, let suspended): suspended ? "starting suspended" : "starting"
        case .running(_, let held, let suspended): (held === transfer ? "running" : "running another") + (suspended ? " suspended" : "")
        case .cancelling(_, let held): held == nil ? "cancelling without transfer" : "cancelling"
        case .completing(let held, let cancelled): (held == nil ? "completing without transfer" : "completing") + (cancelled ? " cancelled" : "")
        case .completed: "completed"
        case .changing: "changing"
        }
    }

    private func describe(_ action: Run.Resume) -> String {
        switch action {
        case .nothing: "nothing"
        case .start: "start"
        case .resumeReading(let resumed): resumed === transfer ? "resume reading" : "resume another"
        }
    }

    private func describe(_ action: Run.Made) -> String {
        switch action {
        case .start(let suspended): suspended ? "start suspended" : "start"
        case .drop: "drop"
        case .reject(let error): "reject \(error.event) in \(error.phase)"
        }
    }

    private func describe(_ action: Run.Cancel) -> String {
        switch action {
        case .nothing: "nothing"
        case .cancelTransfer(let cancelled): cancelled === transfer ? "cancel transfer" : "cancel another"
        case .complete: "complete"
        }
    }

    private func describe(_ action: Run.End) -> String {
        switch action {
        case .ended(let owned): "ended with \(owned.chunks)"
        case .reject(let error): "reject \(error.event) in \(error.phase)"
        }
    }

    private func describe(_ action: Run.Completion) -> String {
        switch action {
        case .completed(let released): released === transfer ? "completed, transfer released" : "completed"
        case .reject(let error): "reject \(error.event) in \(error.phase)"
        }
    }

    /// Each event in each phase: the action and the phase reached.
    private let table: [Reached: [String: (action: String, next: String)]] = [
        .created: [
            "resume": ("start", "starting"), "made": ("reject made in created", "created"), "suspend": ("none", "created"),
            "cancel": ("complete", "cancelling without transfer"), "end": ("ended with [1]", "completing without transfer"),
            "complete": ("reject complete in created", "created"),
        ],
        .starting: [
            "resume": ("nothing", "starting"), "made": ("start", "running"), "suspend": ("none", "starting suspended"),
            "cancel": ("complete", "cancelling without transfer"), "end": ("ended with [1]", "completing without transfer"),
            "complete": ("reject complete in starting", "starting"),
        ],
        .startingSuspended: [
            "resume": ("nothing", "starting"), "made": ("start suspended", "running suspended"), "suspend": ("none", "starting suspended"),
            "cancel": ("complete", "cancelling without transfer"), "end": ("ended with [1]", "completing without transfer"),
            "complete": ("reject complete in starting", "starting suspended"),
        ],
        .running: [
            "resume": ("nothing", "running"), "made": ("reject made in running", "running"), "suspend": ("transfer", "running suspended"),
            "cancel": ("cancel transfer", "cancelling"), "end": ("ended with [1]", "completing"),
            "complete": ("reject complete in running", "running"),
        ],
        .runningSuspended: [
            "resume": ("resume reading", "running"), "made": ("reject made in running", "running suspended"),
            "suspend": ("none", "running suspended"), "cancel": ("cancel transfer", "cancelling"), "end": ("ended with [1]", "completing"),
            "complete": ("reject complete in running", "running suspended"),
        ],
        .cancellingBeforeTransfer: [
            "resume": ("nothing", "cancelling without transfer"), "made": ("drop", "cancelling without transfer"),
            "suspend": ("none", "cancelling without transfer"), "cancel": ("nothing", "cancelling without transfer"),
            "end": ("ended with [1]", "completing without transfer cancelled"),
            "complete": ("reject complete in cancelling", "cancelling without transfer"),
        ],
        .cancelling: [
            "resume": ("nothing", "cancelling"), "made": ("drop", "cancelling"), "suspend": ("none", "cancelling"),
            "cancel": ("nothing", "cancelling"), "end": ("ended with [1]", "completing cancelled"),
            "complete": ("reject complete in cancelling", "cancelling"),
        ],
        .completing: [
            "resume": ("nothing", "completing"), "made": ("drop", "completing"), "suspend": ("none", "completing"),
            "cancel": ("nothing", "completing"), "end": ("reject end in completing", "completing"),
            "complete": ("completed, transfer released", "completed"),
        ],
        .completed: [
            "resume": ("nothing", "completed"), "made": ("drop", "completed"), "suspend": ("none", "completed"),
            "cancel": ("nothing", "completed"), "end": ("reject end in completed", "completed"),
            "complete": ("reject complete in completed", "completed"),
        ],
    ]

    func testEveryEventInEveryPhaseDoesWhatTheTableSays() {
        for reached in Reached.allCases {
            for (event, expected) in table[reached] ?? [:] {
                var run = run(in: reached)
                let action = switch event {
                case "resume": describe(run.resume())
                case "made": describe(run.made(transfer))
                case "suspend": run.suspend().map { $0 === transfer ? "transfer" : "another" } ?? "none"
                case "cancel": describe(run.cancel())
                case "end": describe(run.end())
                default: describe(run.complete(with: nil))
                }
                XCTAssertEqual(action, expected.action, "\(event) in \(reached)")
                XCTAssertEqual(name(run), expected.next, "\(event) in \(reached)")
            }
            XCTAssertEqual(table[reached]?.count, 6, "\(reached) lacks an event")
        }
    }

    func testWhatCallersSeeInEachPhase() {
        let expected: [Reached: URLSessionTask.State] = [
            .created: .suspended, .starting: .running, .startingSuspended: .suspended, .running: .running,
            .runningSuspended: .suspended, .cancellingBeforeTransfer: .canceling, .cancelling: .canceling, .completing: .running,
            .completed: .completed,
        ]
        for reached in Reached.allCases {
            XCTAssertEqual(run(in: reached).state, expected[reached], "\(reached)")
        }
    }

    func testOnlyALiveTaskOwnsItsDataAndChangesItInPlace() {
        for reached in Reached.allCases {
            var run = run(in: reached)
            let live = [.created, .starting, .startingSuspended, .running, .runningSuspended, .cancellingBeforeTransfer, .cancelling]
                .contains(reached)
            let changed = run.live { owned -> [Int] in
                owned.chunks.append(2)
                return owned.chunks
            }
            XCTAssertEqual(changed, live ? [1, 2] : nil, "\(reached)")
            if live, case .ended(let owned) = run.end() {
                XCTAssertEqual(owned.chunks, [1, 2], "\(reached): the end hands over what the task owned")
            }
        }
    }

    func testACancelledTaskStaysCancellingUntilItCompletes() {
        var run = run(in: .cancelling)
        XCTAssertTrue(run.isCancelling)
        _ = run.end()
        XCTAssertTrue(run.isCancelling, "its completion reads the cancel as its error")
        _ = run.complete(with: URLError(.cancelled))
        XCTAssertFalse(run.isCancelling)
        XCTAssertTrue(run.isCompleted)
        XCTAssertEqual((run.error as? URLError)?.code, .cancelled)
    }

    func testTheErrorIsTheOneTheTaskCompletedWith() {
        var run = run(in: .completing)
        XCTAssertNil(run.error)
        XCTAssertFalse(run.isCompleted)
        _ = run.complete(with: URLError(.timedOut))
        XCTAssertEqual((run.error as? URLError)?.code, .timedOut)
    }
}
