const PRODUCTS = {
  "usbc-braided-1m": {name: "Braided USB-C cable, 1 m", price: 9.0},
  "usbc-braided-2m": {name: "Braided USB-C cable, 2 m", price: 12.0},
  "usbc-charger-65w": {name: "USB-C charger, 65 W", price: 39.0},
};
const cart = () => JSON.parse(localStorage.getItem('cart') || '[]');
const saveCart = (items) => { localStorage.setItem('cart', JSON.stringify(items)); showCount(); };
function addToCart(id) { saveCart([...cart(), id]); document.getElementById('status').textContent = PRODUCTS[id].name + ' added to cart.'; }
function showCount() { const el = document.getElementById('count'); if (el) el.textContent = 'Cart (' + cart().length + ')'; }
function header() {
  return '<header><a href="index.html">Voltshop</a><a href="index.html#deals">Deals</a><a href="cart.html" id="count">Cart</a><a href="index.html#help">Help</a></header>';
}
window.addEventListener('DOMContentLoaded', showCount);
