import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Encodes parameters as a JSON body with `Content-Type: application/json` (unless the request
/// sets one). Methods in `httpMethodsEncodingParametersInURI` still use the query string; `nil`
/// parameters give no body and no `Content-Type`. AFNetworking: `AFJSONRequestSerializer`.
public final class JSONRequestSerializer: HTTPRequestSerializer, @unchecked Sendable {
    // @unchecked: adds only an immutable property to the lock-guarded base class.

    /// Options for `JSONSerialization`. Default: none (compact output).
    public let writingOptions: JSONSerialization.WritingOptions

    /// A serializer writing JSON with `writingOptions` (default: compact).
    public init(writingOptions: JSONSerialization.WritingOptions = []) {
        self.writingOptions = writingOptions
        super.init()
    }

    /// Writes `parameters` as JSON; see the type's description. Throws `.invalidJSONParameters`.
    public override func request(bySerializing request: URLRequest, withParameters parameters: Any?) throws -> URLRequest {
        try bodyEncodedRequest(request, parameters: parameters, contentType: "application/json") { object in
            guard JSONSerialization.isValidJSONObject(object),
                  let body = try? JSONSerialization.data(withJSONObject: object, options: writingOptions) else {
                throw RequestSerializationError.invalidJSONParameters
            }
            return body
        }
    }
}
