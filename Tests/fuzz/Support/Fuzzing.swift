// What the fuzz targets do with one input, as plain functions, so that the Swift tests
// replay exactly the code the fuzzers ran on every input that once crashed them
// (Tests/fuzz/regressions/, see FuzzRegressionTests).
//
// Every function here takes hostile bytes and must return normally: errors thrown by Quire
// are the expected outcome of bad input and are swallowed; a trap (force unwrap, overflow,
// index out of range), a sanitizer report, a hang or unbounded memory is a bug.
import QuireDocument
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

public enum Fuzzing {
    /// The limits the fuzz targets open documents with. The defaults let one file decode
    /// 256 MiB per stream and 2 GiB in all and expand to a million pages, which is right for
    /// a server but would make libFuzzer report legitimate work as out-of-memory or slow
    /// units (its defaults: 2 GB of RSS, runs under a second or so). Smaller limits keep
    /// every run cheap while exercising the very same checks; the limits themselves are
    /// tested at their defaults by the limit tests.
    ///
    /// The decode limits are what keeps the rate up: a 3 KB input whose Flate stream
    /// expands 1,000 times was decoded to 1.5 MB and parsed as an object stream, twice per
    /// run, at 4 runs a second under ASan. At 256 KiB per stream and 1 MiB per document the
    /// same input takes the limit's path, which is what there is to test in it.
    public static let limits: PDFLimits = {
        var l = PDFLimits()
        l.maxStreamBytes = 256 << 10
        l.maxTotalDecodedBytes = 1 << 20
        l.maxPages = 10_000
        return l
    }()

    /// At most this many objects of the object graph are read and decoded per document,
    /// so that a short file claiming millions of objects stays a fast run.
    public static let maxObjectsWalked = 5_000
    /// At most this many annotations get their thread and review summary computed.
    public static let maxThreadsWalked = 200

    // MARK: Target (a): open from memory and walk everything

    /// Opens `data` and walks everything Quire reads. Returns the document when it opened.
    /// Then opens it again lazily (issue 17), through 64-byte blocks so that a small input
    /// takes every path of the lazy reader (parses re-run past the bytes read), once whole
    /// and once cut short after a length the input's last byte chooses (a file truncated
    /// while open), and walks that too.
    @discardableResult
    public static func walk(_ data: [UInt8]) -> Document? {
        let document = try? Document(data: data, options: OpenOptions(limits: limits))
        if let document { walk(document) }
        walkLazily(data, available: nil)
        if let last = data.last, data.count > 0 { walkLazily(data, available: data.count * Int(last) / 256) }
        return document
    }

    /// Opens `data` lazily from memory, with 64-byte blocks, of which only `available`
    /// bytes can be read (nil: all), and walks it.
    public static func walkLazily(_ data: [UInt8], available: Int?) {
        guard let buffer = try? ByteBuffer.lazy(MemorySource(data, available: available), size: data.count, blockShift: 6),
              let document = try? Document(buffer: buffer, options: OpenOptions(limits: limits)) else { return }
        walk(document)
        _ = try? document.saved(.incremental)
    }

    /// Walks everything of an open document; each part on its own, so that an error in
    /// one (a damaged outline) does not hide the others from the fuzzer.
    public static func walk(_ document: Document) {
        _ = document.pdfVersion()
        _ = document.isEncrypted
        _ = document.isRepaired
        _ = document.warnings
        _ = document.documentIDHex
        _ = try? document.metadata()
        walkPages(document)
        walkOutline(document)
        walkDestinations(document)
        walkPageLabels(document)
        walkAnnotations(document)
        walkBookmarks(document)
        walkObjects(document)
        walkText(document)
    }

    /// At most this many pages get their text extracted, searched and selected.
    public static let maxTextPages = 8

    /// Extracts the text of the first pages (issue 18), with its words, a search, a
    /// selection and the text under each markup annotation: an error, never a trap.
    static func walkText(_ document: Document) {
        guard let count = try? document.pageCount() else { return }
        var limits = TextLimits()
        limits.maxGlyphs = 200_000
        limits.maxOperators = 500_000
        for index in 0..<min(count, maxTextPages) {
            guard let text = try? document.textPage(at: index, limits: limits) else { continue }
            _ = text.words
            _ = text.search("e", options: TextSearchOptions(wholeWord: true))
            if let first = text.characters.first, let last = text.characters.last {
                _ = text.select(from: first.quad.center, to: last.quad.lowerRight)
            }
            for a in (try? document.annotations(onPage: index)) ?? [] where !a.quadPoints.isEmpty {
                _ = try? document.markedText(of: a)
            }
        }
    }

    static func walkPages(_ document: Document) {
        guard let pages = try? document.pages() else { return }
        for page in pages {
            for box in PageBox.allCases { _ = try? page.box(box) }
            _ = try? page.rotation()
            _ = try? page.annotationCount()
        }
        if let count = try? document.pageCount(), count > 0 {
            // Out of range on purpose: an error, never a trap.
            _ = try? document.page(at: count)
            _ = try? document.page(at: -1)
        }
    }

    static func walkOutline(_ document: Document) {
        if let items = try? document.outline() {
            var stack = items
            while let item = stack.popLast() {
                _ = item.target
                if let action = item.action { _ = action.kind }
                stack.append(contentsOf: item.children)
            }
        }
        _ = try? document.flatOutline()
        _ = try? document.outlineItemCount()
    }

    static func walkDestinations(_ document: Document) {
        guard let named = try? document.namedDestinations() else { return }
        for (name, _) in named.prefix(100) {
            _ = try? document.resolveNamedDestination(name)
        }
        _ = try? document.resolveNamedDestination("no such destination")
    }

    static func walkPageLabels(_ document: Document) {
        _ = try? document.pageLabelRanges()
        _ = try? document.pageLabels()
        if let count = try? document.pageCount() {
            _ = try? document.pageLabel(at: count)
        }
    }

    static func walkAnnotations(_ document: Document) {
        guard let count = try? document.pageCount() else { return }
        var ids: [ObjectID] = []
        for index in 0..<count {
            guard let annotations = try? document.annotations(onPage: index) else { continue }
            for a in annotations {
                if let id = a.id { ids.append(id) }
                if let action = a.action { _ = action.kind }
                _ = a.isStateReply
            }
        }
        for id in ids.prefix(maxThreadsWalked) {
            _ = try? document.annotation(id)
            _ = try? document.replies(to: id)
            _ = try? document.comments(for: id)
            _ = try? document.reviewSummary(for: id)
        }
        _ = try? document.searchAnnotations("e")
        _ = try? document.exportAnnotationsJSON(page: nil)
    }

    /// The user bookmarks the built-in provider stores in the catalog (/QUIR_Bookmarks):
    /// both orders, each one's page and action, and export to the outline (a change, on a
    /// document that is thrown away).
    static func walkBookmarks(_ document: Document) {
        guard let list = try? document.bookmarks.bookmarks(sortedBy: .custom) else { return }
        _ = try? document.bookmarks.bookmarks(sortedBy: .pageBased)
        for b in list.prefix(1_000) {
            _ = b.pageIndex
            _ = try? document.bookmarks.bookmark(identifier: b.identifier)
        }
        _ = try? document.exportBookmarksToOutline()
        _ = try? document.outline()
    }

    static func walkObjects(_ document: Document) {
        let file = document.file
        _ = file.isLinearized
        _ = document.trailer
        for number in file.objectNumbers.prefix(maxObjectsWalked) {
            guard let object = try? document.object(number) else { continue }
            if case .stream(let stream) = object {
                _ = try? document.streamData(stream, decoded: true)
                _ = try? document.streamData(stream, decoded: false)
            }
        }
        _ = try? document.object(-1)
        _ = try? document.object(Int.max)
    }

    // MARK: Target (b): open, edit annotations, save incrementally, reopen, walk

    /// Opens `data`, adds a note, a reply and a review state (and replies to and changes
    /// the file's first annotation), saves incrementally to memory, reopens the result
    /// and walks it. Returns the saved bytes when the save succeeded.
    @discardableResult
    public static func edit(_ data: [UInt8]) -> [UInt8]? {
        guard let document = try? Document(data: data, options: OpenOptions(limits: limits)),
              let count = try? document.pageCount(), count > 0 else { return nil }
        let pageIndex = count > 1 ? 1 : 0
        var note = Annotation(subtype: "Text", pageIndex: pageIndex, rect: Rect(left: 72, bottom: 700, right: 92, top: 720))
        note.contents = "fuzz"
        note.author = "Ada"
        if let added = try? document.addAnnotation(note), let id = added.id {
            _ = try? document.addReply(to: id, author: "Bob", contents: "reply")
            _ = try? document.addStateReply(to: id, author: "Bob", model: .review, state: "Accepted")
            _ = try? document.reviewSummary(for: id)
        }
        // The file's own first annotation: the hostile one.
        if let existing = (try? document.annotations(onPage: 0))?.first(where: { $0.id != nil }), let id = existing.id {
            var changed = existing
            changed.contents = (existing.contents ?? "") + " (edited)"
            changed.color = [1, 0, 0]
            _ = try? document.updateAnnotation(changed)
            _ = try? document.addReply(to: id, author: "Cy", contents: "re")
            _ = try? document.addStateReply(to: id, author: "Cy", model: .marked, state: "Marked")
            _ = try? document.comments(for: id)
        }
        // Bookmarks: add one, change it, move it, against whatever the file stores.
        let mark = Bookmark(pageIndex: pageIndex, name: "fuzz")
        if (try? document.bookmarks.add(mark)) != nil {
            var renamed = mark
            renamed.name = "fuzz (renamed)"
            _ = try? document.bookmarks.add(renamed)
            _ = try? document.bookmarks.move(identifier: mark.identifier, to: 0)
        }
        fillForm(document)
        guard let saved = try? document.saved(.incremental) else { return nil }
        walk(saved)
        appendInPlace(data)
        return saved
    }

    /// The append in place (issue 17) of a file read lazily: `data` written to a file,
    /// opened from it (every file read lazily), a note added, the update appended in place,
    /// the file opened again and walked. Errors are expected (a file that needs repair
    /// cannot be appended to); a trap is not.
    static func appendInPlace(_ data: [UInt8]) {
        setenv("QUIRE_LAZY_MIN_BYTES", "0", 1)
        let path = "/tmp/quire-fuzz-append-\(getpid()).pdf"
        defer { unlink(path) }
        guard (try? AtomicFile.write(data, to: path)) != nil,
              let document = try? Document(path: path, options: OpenOptions(limits: limits)),
              let count = try? document.pageCount(), count > 0 else { return }
        var note = Annotation(subtype: "Text", pageIndex: count - 1, rect: Rect(left: 10, bottom: 10, right: 30, top: 30))
        note.contents = "appended"
        _ = try? document.addAnnotation(note)
        guard (try? document.saveAppendingInPlace(to: path)) != nil else { return }
        _ = try? document.annotations(onPage: count - 1)
        if let again = try? Document(path: path, options: OpenOptions(limits: limits)) { walk(again) }
    }

    /// At most this many fields are filled.
    public static let maxFilledFields = 64

    /// Forms (issue 22): fills the first fields of the file's form with a value of each
    /// one's type, resets one, trades the result through XFDF, then flattens a copy: an
    /// error, never a trap.
    static func fillForm(_ document: Document) {
        _ = try? document.formKind()
        let fields = (try? document.formFields()) ?? []
        for field in fields.prefix(maxFilledFields) {
            let value: [String]
            switch field.type {
            // Characters inside and outside WinAnsi and the /DR font's encoding (issue 22).
            case .text: value = [String(repeating: "fuzz ", count: 3) + "€é–Ж"]
            case .checkBox, .radioButton: value = [field.options.first?.exportValue ?? "Yes"]
            case .comboBox: value = [field.options.first?.exportValue ?? "fuzz"]
            case .listBox: value = field.options.prefix(2).map(\.exportValue)
            default: value = ["x"]
            }
            _ = try? document.setFieldValues(value, of: field)
        }
        if let first = fields.first { _ = try? document.resetField(first) }
        if let xfdf = try? document.exportXFDF() {
            _ = try? document.importXFDF(Array(xfdf.utf8))
        }
        if let copy = try? Document(data: (try? document.saved(.incremental)) ?? [], options: OpenOptions(limits: limits)) {
            _ = try? copy.flatten()
            _ = try? copy.saved(.full(objectStreams: false))
        }
    }

    // MARK: Target (c): annotation JSON import

    /// A small document the JSON target imports into: two pages, a note with a reply and a
    /// review state, so that records can update annotations by name and reply to them.
    public static let jsonBase: [UInt8] = {
        var b = [UInt8]("%PDF-1.7\n".utf8)
        var offsets: [Int] = []
        func object(_ body: String) {
            offsets.append(b.count)
            b += Array("\(offsets.count) 0 obj\n\(body)\nendobj\n".utf8)
        }
        object("<< /Type /Catalog /Pages 2 0 R >>")
        object("<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>")
        object("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [5 0 R 6 0 R 7 0 R] >>")
        object("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /CropBox [10 10 585 832] /Rotate 90 >>")
        object("<< /Type /Annot /Subtype /Text /Rect [72 700 92 720] /NM (note) /T (Ada) /Contents (Hello) /M (D:20240101120000Z) /CreationDate (D:20240101120000Z) >>")
        object("<< /Type /Annot /Subtype /Text /Rect [72 680 92 700] /NM (reply) /T (Bob) /Contents (Hi) /IRT 5 0 R /RT /R >>")
        object("<< /Type /Annot /Subtype /Text /Rect [72 660 92 680] /NM (state) /T (Bob) /IRT 5 0 R /State (Accepted) /StateModel (Review) /F 2 >>")
        let start = b.count
        var xref = "xref\n0 \(offsets.count + 1)\n0000000000 65535 f \n"
        for o in offsets {
            let digits = String(o)
            xref += String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n"
        }
        xref += "trailer\n<< /Size \(offsets.count + 1) /Root 1 0 R >>\nstartxref\n\(start)\n%%EOF\n"
        b += Array(xref.utf8)
        return b
    }()

    /// Parses `data` as annotation JSON, imports it into ``jsonBase``, and when that
    /// succeeds exports, saves incrementally, reopens and imports the export again.
    /// Returns whether the import succeeded.
    @discardableResult
    public static func importJSON(_ data: [UInt8]) -> Bool {
        if let value = try? InstantJSONValue(parsing: data) { _ = value.canonicalText }
        guard let document = try? Document(data: jsonBase, options: OpenOptions(limits: limits)) else { return false }
        guard (try? document.importAnnotationsJSON(data)) != nil else { return false }
        walkAnnotations(document)
        guard let exported = try? document.exportAnnotationsJSON(page: nil),
              let saved = try? document.saved(.incremental),
              let reopened = walk(saved) else { return true }
        _ = try? reopened.importAnnotationsJSON(exported)
        return true
    }
}

extension Fuzzing {
    /// The font target: the first byte picks the font descriptor key the rest came from
    /// (0: FontFile, Type 1; 1: FontFile2, TrueType; else FontFile3, CFF or OpenType), and
    /// the boxes of the first 256 glyphs and of a few named ones are read, as text
    /// extraction reads them. Returns how many boxes were found.
    @discardableResult
    public static func font(_ data: [UInt8]) -> Int {
        guard let selector = data.first else { return 0 }
        let key = selector == 0 ? "FontFile" : selector == 1 ? "FontFile2" : "FontFile3"
        let boxes = EmbeddedFontProgram.glyphBoxes(Array(data.dropFirst()), key: key, count: 256,
                                                   names: ["A", "a", "Aacute", "space", ".notdef", "fi", "uni4E00"])
        return boxes.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
    }
}
