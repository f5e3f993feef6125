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

    /// Writes `parameters` as a property list; see the type's description.
    /// Throws `.invalidPropertyListParameters`.
    public override func request(bySerializing request: URLRequest, withParameters parameters: Any?) throws -> URLRequest {
        try bodyEncodedRequest(request, parameters: parameters, contentType: "application/x-plist") { object in
            guard PropertyListSerialization.propertyList(object, isValidFor: format) else {
                throw RequestSerializationError.invalidPropertyListParameters(reason: "not a property-list object")
            }
            do {
                return try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0)
            } catch {
                throw RequestSerializationError.invalidPropertyListParameters(reason: String(describing: error))
            }
        }
    }
}
