import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

extension XCTestCase {
    /// What `error` says of the limit a response exceeded (`SessionError.responseLimitExceeded`),
    /// failing the test when it is another error or none.
    func limitError(_ error: (any Error)?, file: StaticString = #filePath, line: UInt = #line)
        -> (limit: ResponseLimits.Limit, declaredLength: Int64?, response: HTTPURLResponse?)? {
        guard case .responseLimitExceeded(let limit, let declaredLength, let response)? = error as? SessionError else {
            XCTFail("expected responseLimitExceeded, got \(String(describing: error))", file: file, line: line)
            return nil
        }
        return (limit, declaredLength, response)
    }
}
