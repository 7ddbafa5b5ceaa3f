"""Catalog API: a small product catalog with in-memory data.

It is the target of the `traffic` service: list and fetch products, browse categories and
place orders. An unknown product id answers 404 on purpose, so that Studio's status-code
breakdown has something to show.
"""

from datetime import datetime, timezone
from decimal import Decimal
from itertools import count
from threading import Lock

from fastapi import FastAPI, HTTPException, status
from pydantic import BaseModel, Field

app = FastAPI(
    title="Catalog API",
    version="1.0.0",
    description="Products, categories and orders, kept in memory.",
)


class Product(BaseModel):
    id: int
    name: str
    category: str
    price: Decimal = Field(description="Unit price in EUR")
    stock: int


class OrderItem(BaseModel):
    product_id: int
    quantity: int = Field(gt=0, le=100)


class OrderIn(BaseModel):
    items: list[OrderItem] = Field(min_length=1)


class OrderLine(BaseModel):
    product_id: int
    name: str
    quantity: int
    unit_price: Decimal
    subtotal: Decimal


class Order(BaseModel):
    id: int
    items: list[OrderLine]
    total: Decimal
    created_at: datetime


_PRODUCTS: dict[int, Product] = {
    p.id: p
    for p in [
        Product(id=1, name="Espresso beans 1kg", category="coffee", price=Decimal("24.90"), stock=40),
        Product(id=2, name="Filter beans 500g", category="coffee", price=Decimal("12.50"), stock=75),
        Product(id=3, name="Decaf beans 500g", category="coffee", price=Decimal("13.90"), stock=20),
        Product(id=4, name="Hand grinder", category="equipment", price=Decimal("89.00"), stock=12),
        Product(id=5, name="Pour-over dripper", category="equipment", price=Decimal("29.00"), stock=30),
        Product(id=6, name="Gooseneck kettle", category="equipment", price=Decimal("59.00"), stock=8),
        Product(id=7, name="Ceramic cup", category="tableware", price=Decimal("9.50"), stock=120),
        Product(id=8, name="Glass carafe", category="tableware", price=Decimal("19.00"), stock=25),
        Product(id=9, name="Paper filters x100", category="supplies", price=Decimal("4.90"), stock=300),
        Product(id=10, name="Descaler", category="supplies", price=Decimal("7.90"), stock=60),
    ]
}

# Orders live in memory too; a lock keeps ids unique under uvicorn's threadpool.
_orders: dict[int, Order] = {}
_order_ids = count(1)
_orders_lock = Lock()


@app.get("/health", tags=["ops"])
def health() -> dict[str, str]:
    return {"status": "ok"}


@app.get("/products", tags=["products"])
def list_products() -> list[Product]:
    return list(_PRODUCTS.values())


@app.get("/products/{product_id}", tags=["products"], responses={404: {"description": "Unknown product"}})
def get_product(product_id: int) -> Product:
    product = _PRODUCTS.get(product_id)
    if product is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"product {product_id} not found")
    return product


@app.get("/categories", tags=["categories"])
def list_categories() -> list[str]:
    return sorted({p.category for p in _PRODUCTS.values()})


@app.get(
    "/categories/{category}/products",
    tags=["categories"],
    responses={404: {"description": "Unknown category"}},
)
def list_category_products(category: str) -> list[Product]:
    products = [p for p in _PRODUCTS.values() if p.category == category]
    if not products:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"category {category!r} not found")
    return products


@app.post(
    "/orders",
    tags=["orders"],
    status_code=status.HTTP_201_CREATED,
    responses={404: {"description": "An item names an unknown product"}},
)
def create_order(order: OrderIn) -> Order:
    lines: list[OrderLine] = []
    for item in order.items:
        product = _PRODUCTS.get(item.product_id)
        if product is None:
            raise HTTPException(
                status.HTTP_404_NOT_FOUND, detail=f"product {item.product_id} not found"
            )
        lines.append(
            OrderLine(
                product_id=product.id,
                name=product.name,
                quantity=item.quantity,
                unit_price=product.price,
                subtotal=product.price * item.quantity,
            )
        )
    with _orders_lock:
        created = Order(
            id=next(_order_ids),
            items=lines,
            total=sum((line.subtotal for line in lines), Decimal("0")),
            created_at=datetime.now(timezone.utc),
        )
        _orders[created.id] = created
    return created


@app.get("/orders/{order_id}", tags=["orders"], responses={404: {"description": "Unknown order"}})
def get_order(order_id: int) -> Order:
    order = _orders.get(order_id)
    if order is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"order {order_id} not found")
    return order
