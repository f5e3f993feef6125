import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Tries several serializers in order; the first that returns a non-nil object without throwing
/// wins. When none does, the first error is thrown, or `nil` returned if none threw.
/// AFNetworking: `AFCompoundResponseSerializer`.
public struct CompoundResponseSerializer: URLResponseSerialization {
    /// The serializers, in the order they are tried.
    public var responseSerializers: [any URLResponseSerialization]

    /// A serializer trying `responseSerializers` in order.
    public init(responseSerializers: [any URLResponseSerialization]) {
        self.responseSerializers = responseSerializers
    }

    /// The first object any serializer yields; see the type's description.
    public func responseObject(for response: URLResponse?, data: Data?) throws -> (any Sendable)? {
        var firstError: (any Error)?
        for serializer in responseSerializers {
            do {
                if let object = try serializer.erasedResponseObject(for: response, data: data) {
                    return object
                }
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
        return nil
    }
}
