/// MIME types by file extension, built in because Linux has no system type database that
/// Foundation reads. AFNetworking asks `UTType` on Apple platforms instead.
public enum MIMEType {
    /// The type for a file extension (case-insensitive, without the dot), or
    /// `application/octet-stream` when the extension is unknown.
    public static func forPathExtension(_ pathExtension: String) -> String {
        table[pathExtension.lowercased()] ?? "application/octet-stream"
    }

    private static let table: [String: String] = [
        // Text and web
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "conf": "text/plain",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "tsv": "text/tab-separated-values", "md": "text/markdown", "markdown": "text/markdown",
        "ics": "text/calendar", "vcf": "text/vcard", "rtf": "application/rtf",
        "js": "text/javascript", "mjs": "text/javascript", "json": "application/json",
        "jsonld": "application/ld+json", "map": "application/json", "geojson": "application/geo+json",
        "xml": "application/xml", "xsl": "application/xml", "xhtml": "application/xhtml+xml",
        "rss": "application/rss+xml", "atom": "application/atom+xml", "yaml": "application/yaml",
        "yml": "application/yaml", "toml": "application/toml", "wasm": "application/wasm",
        "plist": "application/x-plist", "webmanifest": "application/manifest+json",
        // Images
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg",
        "gif": "image/gif", "bmp": "image/bmp", "webp": "image/webp", "svg": "image/svg+xml",
        "svgz": "image/svg+xml", "ico": "image/vnd.microsoft.icon", "tif": "image/tiff",
        "tiff": "image/tiff", "heic": "image/heic", "heif": "image/heif", "avif": "image/avif",
        "jxl": "image/jxl", "psd": "image/vnd.adobe.photoshop",
        // Audio
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav",
        "oga": "audio/ogg", "ogg": "audio/ogg", "opus": "audio/opus", "flac": "audio/flac",
        "mid": "audio/midi", "midi": "audio/midi", "weba": "audio/webm", "aif": "audio/aiff",
        "aiff": "audio/aiff", "caf": "audio/x-caf",
        // Video
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "ogv": "video/ogg", "avi": "video/x-msvideo", "mkv": "video/x-matroska", "mpeg": "video/mpeg",
        "mpg": "video/mpeg", "3gp": "video/3gpp", "3g2": "video/3gpp2", "ts": "video/mp2t",
        "flv": "video/x-flv", "wmv": "video/x-ms-wmv",
        // Fonts
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        // Archives and binaries
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "tar": "application/x-tar", "bz2": "application/x-bzip2", "xz": "application/x-xz",
        "zst": "application/zstd", "7z": "application/x-7z-compressed", "rar": "application/vnd.rar",
        "jar": "application/java-archive", "apk": "application/vnd.android.package-archive",
        "deb": "application/vnd.debian.binary-package", "rpm": "application/x-rpm",
        "dmg": "application/x-apple-diskimage", "iso": "application/x-iso9660-image",
        "bin": "application/octet-stream", "exe": "application/vnd.microsoft.portable-executable",
        // Documents
        "pdf": "application/pdf", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text",
        "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "odp": "application/vnd.oasis.opendocument.presentation",
        "epub": "application/epub+zip", "ps": "application/postscript", "eps": "application/postscript",
        "sqlite": "application/vnd.sqlite3", "db": "application/vnd.sqlite3",
        // Certificates and keys
        "cer": "application/x-x509-ca-cert", "crt": "application/x-x509-ca-cert",
        "der": "application/x-x509-ca-cert", "pem": "application/x-pem-file",
        "p12": "application/x-pkcs12", "pfx": "application/x-pkcs12", "p7b": "application/x-pkcs7-certificates",
        "p7c": "application/pkcs7-mime", "p7s": "application/pkcs7-signature", "p8": "application/pkcs8",
        "key": "application/x-pem-file", "csr": "application/pkcs10", "crl": "application/pkix-crl",
    ]
}
