import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `HTTPURLResponse` of the libcurl transport, which also keeps the header lines as they
/// came: `HTTPURLResponse` joins a repeated field's values with ", " (and its `allHeaderFields`
/// cannot be overridden), which a reader that must see each field on its own (an OpenAPI
/// client's two `Set-Cookie` fields) cannot undo. The lines are parsed only when `fieldList`
/// is read.
package final class FieldLinesResponse: HTTPURLResponse, @unchecked Sendable {
    // @unchecked: `fieldLines` is a constant, as every field of the base class is after init.
    private let fieldLines: ArraySlice<String>

    /// The response `HTTPURLResponse(url:statusCode:httpVersion:headerFields:)` makes, keeping
    /// `fieldLines`, the head's lines after its status line.
    init?(url: URL, statusCode: Int, httpVersion: String?, headerFields: [String: String]?, fieldLines: ArraySlice<String>) {
        self.fieldLines = fieldLines
        super.init(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: headerFields)
    }

    required init?(coder: NSCoder) {
        fieldLines = []
        super.init(coder: coder)
    }

    /// Every field in the order it came, a repeated field once per line, names in the server's
    /// spelling; as `ResponseHead` reads them (a line without a colon or whose name is not a
    /// token ignored, a folded line added to the field before it).
    package var fieldList: [(name: String, value: String)] {
        var list: [(name: String, value: String)] = []
        for line in fieldLines {
            guard let field = ResponseHead.field(of: line) else { continue }
            guard let name = field.name else {
                if let last = list.indices.last { list[last].value += " " + field.value }
                continue
            }
            list.append((name, field.value))
        }
        return list
    }
}
