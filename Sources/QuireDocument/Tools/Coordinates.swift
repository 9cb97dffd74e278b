import QuireSyntax

/// A point in PDF user space (or in device pixels, where a function says so).
public struct Point: Sendable, Equatable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    public var isFinite: Bool { x.isFinite && y.isFinite }
    public var description: String { "(\(x), \(y))" }
}

/// An affine transform `x' = a x + c y + e`, `y' = b x + d y + f` (PDF's matrix order).
public struct AffineTransform: Sendable, Equatable {
    public var a, b, c, d, e, f: Double
    public init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.e = e; self.f = f
    }
    public static let identity = AffineTransform(1, 0, 0, 1, 0, 0)

    public func apply(_ p: Point) -> Point {
        Point(x: a * p.x + c * p.y + e, y: b * p.x + d * p.y + f)
    }

    /// `self` then `other`.
    public func concatenating(_ other: AffineTransform) -> AffineTransform {
        AffineTransform(a * other.a + b * other.c, a * other.b + b * other.d,
                        c * other.a + d * other.c, c * other.b + d * other.d,
                        e * other.a + f * other.c + other.e, e * other.b + f * other.d + other.f)
    }

    /// The inverse; nil when the transform is singular (or not finite).
    public var inverted: AffineTransform? {
        let det = a * d - b * c
        guard det != 0, det.isFinite else { return nil }
        let t = AffineTransform(d / det, -b / det, -c / det, a / det,
                                (c * f - d * e) / det, (b * e - a * f) / det)
        guard [t.a, t.b, t.c, t.d, t.e, t.f].allSatisfy(\.isFinite) else { return nil }
        return t
    }
}

/// How a page is shown on the host's screen: the device rectangle it is rendered into
/// (pixels, y down) and an extra rotation in quarter turns clockwise, as PDFium's
/// `FPDF_DeviceToPage` / `FPDF_PageToDevice` take them. The zoom is the ratio of the
/// device size to the page's (crop box) size.
public struct PageView: Sendable, Equatable {
    public var startX: Double, startY: Double, sizeX: Double, sizeY: Double
    /// Quarter turns clockwise, 0...3, on top of the page's own /Rotate.
    public var rotate: Int

    public init(startX: Double = 0, startY: Double = 0, sizeX: Double, sizeY: Double, rotate: Int = 0) {
        self.startX = startX; self.startY = startY; self.sizeX = sizeX; self.sizeY = sizeY; self.rotate = rotate
    }
}

/// The geometry of one page for the tool manager: its visible box and rotation.
public struct PageGeometry: Sendable, Equatable {
    /// The box user space is shown through: the crop box clipped to the media box (a crop
    /// box outside the media box, or an empty one, is the media box), normalized, as
    /// PDFium's `CPDF_Page` computes it.
    public var box: Rect
    /// /Rotate: 0, 90, 180 or 270.
    public var rotation: Int

    public init(box: Rect, rotation: Int) {
        self.box = box.normalized
        self.rotation = ((rotation % 360) + 360) % 360 / 90 * 90
    }

    /// The size as displayed: width and height swap for 90 and 270.
    public var displayedSize: (width: Double, height: Double) {
        rotation % 180 == 0 ? (box.width, box.height) : (box.height, box.width)
    }

    /// User space to the rotated page space, whose origin is the displayed page's bottom
    /// left (PDFium's page matrix).
    var pageMatrix: AffineTransform {
        let b = box
        switch rotation {
        case 90: return AffineTransform(0, -1, 1, 0, -b.bottom, b.right)
        case 180: return AffineTransform(-1, 0, 0, -1, b.right, b.top)
        case 270: return AffineTransform(0, 1, -1, 0, b.top, -b.left)
        default: return AffineTransform(1, 0, 0, 1, -b.left, -b.bottom)
        }
    }

    /// User space to device pixels for `view` (PDFium's display matrix); nil when the page
    /// or the view is empty or not finite.
    public func deviceTransform(_ view: PageView) -> AffineTransform? {
        let (w, h) = displayedSize
        guard w > 0, h > 0, w.isFinite, h.isFinite, view.sizeX > 0, view.sizeY > 0,
              [view.startX, view.startY, view.sizeX, view.sizeY].allSatisfy(\.isFinite) else { return nil }
        let left = view.startX, top = view.startY
        let right = view.startX + view.sizeX, bottom = view.startY + view.sizeY
        let x0, y0, x1, y1, x2, y2: Double
        switch ((view.rotate % 4) + 4) % 4 {
        case 1: (x0, y0, x1, y1, x2, y2) = (left, top, right, top, left, bottom)
        case 2: (x0, y0, x1, y1, x2, y2) = (right, top, right, bottom, left, top)
        case 3: (x0, y0, x1, y1, x2, y2) = (right, bottom, left, bottom, right, top)
        default: (x0, y0, x1, y1, x2, y2) = (left, bottom, left, top, right, bottom)
        }
        let display = AffineTransform((x2 - x0) / w, (y2 - y0) / w, (x1 - x0) / h, (y1 - y0) / h, x0, y0)
        return pageMatrix.concatenating(display)
    }

    /// A device point of `view` in user space (`FPDF_DeviceToPage`, without its rounding).
    public func deviceToPage(_ p: Point, view: PageView) throws -> Point {
        guard p.isFinite else { throw PDFError(.invalidArgument, "the device point \(p) is not finite") }
        guard let m = deviceTransform(view), let inv = m.inverted else {
            throw PDFError(.invalidArgument, "the page or the view is empty: no point maps to the page")
        }
        return inv.apply(p)
    }

    /// A user-space point in device pixels of `view` (`FPDF_PageToDevice`, without its
    /// rounding to integers).
    public func pageToDevice(_ p: Point, view: PageView) throws -> Point {
        guard p.isFinite else { throw PDFError(.invalidArgument, "the page point \(p) is not finite") }
        guard let m = deviceTransform(view) else {
            throw PDFError(.invalidArgument, "the page or the view is empty: no point maps to the device")
        }
        return m.apply(p)
    }
}

extension Rect {
    /// The same rectangle with left <= right and bottom <= top.
    public var normalized: Rect {
        Rect(left: Swift.min(left, right), bottom: Swift.min(bottom, top),
             right: Swift.max(left, right), top: Swift.max(bottom, top))
    }

    /// Whether `p` lies inside, grown by `tolerance` on every side.
    public func contains(_ p: Point, tolerance: Double = 0) -> Bool {
        let r = normalized
        return p.x >= r.left - tolerance && p.x <= r.right + tolerance
            && p.y >= r.bottom - tolerance && p.y <= r.top + tolerance
    }
}

extension Page {
    /// The page's geometry as PDFium shows it (see ``PageGeometry/box``).
    public func geometry() throws -> PageGeometry {
        let media = try box(.media).normalized
        let mediaBox = media.width > 0 && media.height > 0 ? media : Rect.letter
        var shown = mediaBox
        if let crop = try document.rect(inheritedCropBox)?.normalized {
            let clipped = Rect(left: Swift.max(crop.left, mediaBox.left), bottom: Swift.max(crop.bottom, mediaBox.bottom),
                               right: Swift.min(crop.right, mediaBox.right), top: Swift.min(crop.top, mediaBox.top))
            if clipped.width > 0 && clipped.height > 0 { shown = clipped }
        }
        return PageGeometry(box: shown, rotation: try rotation())
    }
}
