
(function(){
"use strict";
// The graph is drawn once, by Python, in #graph.  Everything that changes
// while a person looks (hover, selection, filter matches) is drawn in the
// small #over layer on top, so the big picture is never repainted for it;
// pan and zoom move both layers as one composited image and redraw the
// picture at its new scale only when the gesture stops.
var D=JSON.parse(document.getElementById("data").textContent);
var N=D.nodes,C=D.citations,days=D.days,NS="http://www.w3.org/2000/svg";
var $=function(id){return document.getElementById(id);};
var svg=$("graph"),over=$("over"),pan=$("pan"),stage=$("stage");
var adj=[],texts=[],i;
for(i=0;i<N.length;i++)adj.push([]);
D.links.forEach(function(l){adj[l[0]].push([l[1],l[2]]);adj[l[1]].push([l[0],l[2]]);});
document.querySelectorAll("#labels text").forEach(function(t){texts[+t.getAttribute("data-i")]=t;});
var W=1000,H=700,z=1,tx=0,ty=0,cz=1,ctx=0,cty=0,timer=0;
function box(){var r=stage.getBoundingClientRect(),u=Math.min(r.width/W,r.height/H)||1;return{u:u,ox:(r.width-W*u)/2,oy:(r.height-H*u)/2,left:r.left,top:r.top};}
function commit(){
  timer=0;cz=z;ctx=tx;cty=ty;
  var t="translate("+tx+","+ty+") scale("+z+")";
  $("vp").setAttribute("transform",t);$("vp2").setAttribute("transform",t);
  pan.style.transform="";
  // labels were placed for zooms 2**level; a window a little smaller than the
  // picture's own size (down to 0.84 of it) still shows that level's labels
  var s=z*box().u,lv=Math.max(0,Math.min(D.levels-1,Math.floor(Math.log(s)/Math.LN2+0.25)-D.first));
  pan.style.setProperty("--fs",(D.size/s).toFixed(3));
  pan.className="z"+lv;
}
function moved(){
  // show the new view at once as a transform of the last drawn one
  var b=box(),f=z/cz;
  pan.style.transform="translate("+(b.ox*(1-f)+b.u*(tx-f*ctx))+"px,"+(b.oy*(1-f)+b.u*(ty-f*cty))+"px) scale("+f+")";
  if(timer)clearTimeout(timer);
  timer=setTimeout(commit,180);
}
function toWorld(cx,cy){var b=box();return{x:(cx-b.left-b.ox)/b.u,y:(cy-b.top-b.oy)/b.u};}
function zoomAt(f,cx,cy){var nz=Math.max(.5,Math.min(16,z*f));f=nz/z;tx=cx-(cx-tx)*f;ty=cy-(cy-ty)*f;z=nz;moved();}
stage.addEventListener("wheel",function(ev){ev.preventDefault();var p=toWorld(ev.clientX,ev.clientY);zoomAt(Math.pow(1.0015,-ev.deltaY),p.x,p.y);},{passive:false});
var drag=null;
svg.addEventListener("pointerdown",function(ev){if(ev.button!==0)return;drag={x:ev.clientX,y:ev.clientY,tx:tx,ty:ty,moved:false,target:ev.target};});
window.addEventListener("pointermove",function(ev){
  if(!drag)return;var dx=ev.clientX-drag.x,dy=ev.clientY-drag.y;
  if(!drag.moved&&Math.abs(dx)+Math.abs(dy)<4)return;
  if(!drag.moved){drag.moved=true;stage.classList.add("drag");unhover();}
  var u=box().u;tx=drag.tx+dx/u;ty=drag.ty+dy/u;moved();});
window.addEventListener("pointerup",function(){
  var d=drag;drag=null;if(!d)return;
  if(d.moved){stage.classList.remove("drag");return;}
  var k=d.target.getAttribute&&d.target.getAttribute("data-i");
  if(k!==null&&k!==undefined)select(+k);else clearSelection();});
$("zin").onclick=function(){zoomAt(1.6,W/2,H/2);};
$("zout").onclick=function(){zoomAt(1/1.6,W/2,H/2);};
$("zfit").onclick=function(){z=1;tx=0;ty=0;moved();};
window.addEventListener("resize",function(){commit();});
var tip=$("tip");
svg.addEventListener("mouseover",function(ev){var k=ev.target.getAttribute("data-i");if(k===null||drag)return;hover(+k,ev);});
svg.addEventListener("mousemove",function(ev){if(tip.style.display==="block")place(ev);});
svg.addEventListener("mouseout",function(ev){if(ev.target.getAttribute("data-i")!==null)unhover();});
function esc(s){return String(s).replace(/[&<>"']/g,function(c){return{"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;"}[c];});}
function when(n){return n[5]?(n[5]===n[6]?n[5]:n[5]+" → "+n[6]):"undated";}
function place(ev){var r=stage.getBoundingClientRect();tip.style.left=Math.max(0,Math.min(r.width-260,ev.clientX-r.left+14))+"px";tip.style.top=(ev.clientY-r.top+14)+"px";}
function el(name,attrs,text){var e=document.createElementNS(NS,name);for(var a in attrs)e.setAttribute(a,attrs[a]);if(text)e.textContent=text;return e;}
function dot(k,cls){var n=N[k];return el("circle",{cx:n[10],cy:n[11],r:n[12],fill:kindColour[n[1]]||"#6b7785","class":cls||""});}
function label(k,cls){var t=texts[k];var e=el("text",{x:t.getAttribute("x"),y:t.getAttribute("y"),dx:t.getAttribute("dx"),dy:t.getAttribute("dy"),"class":t.getAttribute("class")+(cls?" "+cls:"")},N[k][0]);return e;}
var kindColour={};document.querySelectorAll("#nodes circle").forEach(function(c){kindColour[N[+c.getAttribute("data-i")][1]]=c.getAttribute("fill");});
var hovered=-1,selected=-1;
function focusOn(k){
  // k's links, neighbours and labels on top; -1 clears
  var hl=$("hl"),fn=$("fn"),fl=$("fl");hl.textContent="";fn.textContent="";fl.textContent="";
  if(k<0){svg.classList.toggle("dim",active);return;}
  svg.classList.add("dim");
  var n=N[k],nb=adj[k],fr=document.createDocumentFragment(),fr2=document.createDocumentFragment(),fr3=document.createDocumentFragment();
  nb.forEach(function(e){var m=N[e[0]];
    fr.appendChild(el("line",{x1:n[10],y1:n[11],x2:m[10],y2:m[11],"stroke-width":Math.min(5,1+Math.log(e[1])).toFixed(2)}));
    fr2.appendChild(dot(e[0]));});
  fr2.appendChild(dot(k,"cur"));
  var shown=nb.slice().sort(function(a,b){return b[1]-a[1]||a[0]-b[0];}).slice(0,30);
  shown.forEach(function(e){fr3.appendChild(label(e[0]));});
  fr3.appendChild(label(k,"cur"));
  hl.appendChild(fr);fn.appendChild(fr2);fl.appendChild(fr3);
}
function hover(k,ev){
  var n=N[k];hovered=k;
  tip.innerHTML="<b>"+esc(n[0])+"</b> · "+esc(n[1])+(n[8]?" ("+esc(n[8])+")":"")+"<br>"+n[2]+" chunks, "+n[3]+" files, "+n[4]+" mentions<br>"+esc(when(n))+"<br>linked to "+adj[k].length;
  tip.style.display="block";place(ev);
  if(selected<0)focusOn(k);
}
function unhover(){tip.style.display="none";if(selected<0&&hovered>=0)focusOn(-1);hovered=-1;}
function highlight(text,names){
  var out=esc(text);names.forEach(function(nm){if(!nm||nm.length<2&&!/[^\x00-\x7f]/.test(nm))return;
    var lo=out.toLowerCase(),t=esc(nm).toLowerCase(),res="",at=0,j;
    while((j=lo.indexOf(t,at))>=0){res+=out.slice(at,j)+"<mark>"+out.slice(j,j+t.length)+"</mark>";at=j+t.length;}
    out=res+out.slice(at);});
  return out;
}
function select(k){
  selected=k;focusOn(k);
  var n=N[k],names=[n[0].replace(/^[#@]/,""),n[9].replace(/^[#@]/,"")];
  var h="<h2>"+esc(n[0])+"</h2><div class='muted'>"+esc(n[1])+(n[8]?" · "+esc(n[8]):"")+" · "+n[2]+" chunks in "+n[3]+" files · "+esc(when(n))+"</div>";
  var nb=adj[k].slice().sort(function(a,b){return b[1]-a[1]||N[b[0]][2]-N[a[0]][2]||a[0]-b[0];}).slice(0,12);
  if(nb.length){h+="<h3>Often with</h3>"+nb.map(function(e){return "<span class='chip' data-go='"+e[0]+"'>"+esc(N[e[0]][0])+" ("+e[1]+")</span>";}).join("");}
  h+="<h3>Citations (newest first)</h3><ul id='cites'>";
  var cited=n[7],shown=cited.length;
  for(var j=0;j<shown;j++){var c=C[cited[j]];
    h+="<li><code>"+esc(c[0])+"</code> <span class='muted'>"+esc(c[1])+"</span>";
    c[2].forEach(function(l){h+="<div class='ln'><b>"+l[0]+"</b><span>"+highlight(l[1],names)+"</span></div>";});
    h+="</li>";}
  h+="</ul>";
  if(n[2]>shown)h+="<p class='muted'>… and "+(n[2]-shown)+" more: <code>link.sh entity "+esc(n[0])+" --limit "+n[2]+"</code></p>";
  else if(cited.some(function(c){return !C[c][2].length;}))h+="<p class='muted'>Lines of older citations: <code>search.sh get PATH:FIRST-LAST</code></p>";
  var p=$("panel");p.innerHTML=h;p.scrollTop=0;
  p.querySelectorAll("[data-go]").forEach(function(x){x.onclick=function(){select(+x.getAttribute("data-go"));};});
  markDays(k);
}
function clearSelection(){if(selected<0)return;selected=-1;focusOn(-1);markDays(-1);}
document.addEventListener("keydown",function(ev){if(ev.key==="Escape")clearSelection();});
var dayRects={};document.querySelectorAll("#days .day").forEach(function(r){dayRects[r.getAttribute("data-d")]=r;
  r.addEventListener("click",function(){var d=r.getAttribute("data-d");$("from").value=d;$("to").value=d;filter();});});
var marked=[];
function markDays(k){
  marked.forEach(function(r){r.classList.remove("hit");});marked=[];
  if(k<0)return;N[k][13].forEach(function(d){var r=dayRects[days[d]];if(r){r.classList.add("hit");marked.push(r);}});
}
var d0=days.length?Date.parse(days[0]):0,d1=days.length?Date.parse(days[days.length-1]):0,span=Math.max(1,(d1-d0)/864e5+1);
function pct(d){return(Date.parse(d)-d0)/864e5/span*100;}
var active=false,matched=null;
function filter(){
  var q=$("q").value.trim().toLowerCase(),kind=$("kind").value,from=$("from").value,to=$("to").value;
  active=!!(q||kind||from||to);var hits=[];
  if(active){for(var k=0;k<N.length;k++){var n=N[k];
    if(q&&n[0].toLowerCase().indexOf(q)<0&&n[9].indexOf(q)<0)continue;
    if(kind&&n[1]!==kind)continue;
    if((from||to)&&!n[13].some(function(i){var d=days[i];return(!from||d>=from)&&(!to||d<=to);}))continue;
    hits.push(k);}}
  matched=active?hits:null;
  var mn=$("mn"),ml=$("ml");mn.textContent="";ml.textContent="";
  if(active){var a=document.createDocumentFragment(),b=document.createDocumentFragment(),few=hits.length<=40;
    hits.slice().reverse().forEach(function(k){a.appendChild(dot(k,"m"));b.appendChild(label(k,few?"show":""));});
    mn.appendChild(a);ml.appendChild(b);}
  svg.classList.toggle("dim",active||selected>=0||hovered>=0);
  $("count").textContent=active?hits.length+" of "+N.length+" entities":N.length+" entities";
  var rg=$("range");
  if(rg&&(from||to)&&days.length){var x0=from?Math.max(0,pct(from)):0,x1=to?Math.min(100,pct(to)+100/span):100;rg.setAttribute("x",x0*10);rg.setAttribute("width",Math.max(0,(x1-x0)*10));}
  else if(rg)rg.setAttribute("width",0);
  spans(matched);
}
function spans(hits){
  var list=(hits||N.map(function(_,k){return k;})).filter(function(k){return N[k][5];}).slice(0,25);
  var h="";list.forEach(function(k){var n=N[k],a=pct(n[5]),b=pct(n[6])+100/span;
    h+="<div class='span' data-go='"+k+"' title='"+esc(n[0]+": "+when(n))+"'><span>"+esc(n[0])+"</span><div><i style='left:"+a.toFixed(2)+"%;width:"+Math.max(.4,b-a).toFixed(2)+"%;background:"+(kindColour[n[1]]||"#6b7785")+"'></i></div></div>";});
  var e=$("spans");e.innerHTML=h||"<span class='muted'>no dated mentions</span>";
  e.querySelectorAll("[data-go]").forEach(function(x){x.onclick=function(){select(+x.getAttribute("data-go"));};});
}
var pending=0;
["q","kind","from","to"].forEach(function(id){$(id).addEventListener("input",function(){if(pending)clearTimeout(pending);pending=setTimeout(function(){pending=0;filter();},60);});});
$("clear").onclick=function(){$("q").value="";$("kind").value="";$("from").value="";$("to").value="";clearSelection();filter();};
window.memoryPage={filter:filter,select:select,commit:commit};
commit();
filter();
window.__memoryPageReady=performance.now();
requestAnimationFrame(function(){requestAnimationFrame(function(){window.__memoryPageDrawn=performance.now();});});
})();
