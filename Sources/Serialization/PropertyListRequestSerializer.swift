import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Encodes parameters as a property-list body (XML by default) with
/// `Content-Type: application/x-plist` (unless the request sets one). Methods in
/// `httpMethodsEncodingParametersInURI` still use the query string.
/// AFNetworking: `AFPropertyListRequestSerializer`.
public final class PropertyListRequestSerializer: HTTPRequestSerializer, @unchecked Sendable {
    // @unchecked: adds only immutable properties to the lock-guarded base class.

    /// The property-list format. Default `.xml`.
    public let format: PropertyListSerialization.PropertyListFormat

    /// A serializer writing property lists in `format` (default XML).
    public init(format: PropertyListSerialization.PropertyListFormat = .xml) {
        self.format = format
        super.init()
    }

    public override func request(bySerializing request: URLRequest, withParameters parameters: Any?) throws -> URLRequest {
        if encodesParametersInURI(request) {
            return try super.request(bySerializing: request, withParameters: parameters)
        }
        var request = try addingDefaultHeaders(to: request)
        guard let parameters else { return request }
        let object = try ParameterValue(parameters).foundationObject
        guard PropertyListSerialization.propertyList(object, isValidFor: format) else {
            throw RequestSerializationError.invalidPropertyListParameters(reason: "not a property-list object")
        }
        let body: Data
        do {
            body = try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0)
        } catch {
            throw RequestSerializationError.invalidPropertyListParameters(reason: String(describing: error))
        }
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/x-plist", forHTTPHeaderField: "Content-Type")
        }
        request.httpBody = body
        return request
    }
}
