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

    public override func request(bySerializing request: URLRequest, withParameters parameters: Any?) throws -> URLRequest {
        if encodesParametersInURI(request) {
            return try super.request(bySerializing: request, withParameters: parameters)
        }
        var request = try addingDefaultHeaders(to: request)
        guard let parameters else { return request }
        let object = try ParameterValue(parameters).foundationObject
        guard JSONSerialization.isValidJSONObject(object) else { throw RequestSerializationError.invalidJSONParameters }
        let body: Data
        do {
            body = try JSONSerialization.data(withJSONObject: object, options: writingOptions)
        } catch {
            throw RequestSerializationError.invalidJSONParameters
        }
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        request.httpBody = body
        return request
    }
}
